//===- Sha256.h - SHA-256 message digest (FIPS 180-4) -----------*- C++ -*-===//
//
// A small, dependency-free SHA-256, used for compile cache keys and for the
// content hash that every cache entry carries.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_SHA256_H
#define KILN_RUNTIME_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

/// Incremental SHA-256 as specified by FIPS 180-4, section 6.2.
///
///   Sha256 H;
///   H.update("ab");
///   H.update("c");
///   std::string Hex = Sha256::hex(H.finish()); // "ba7816bf..."
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();

  /// Appends Size bytes at Data to the message.
  void update(const void *Data, size_t Size);
  /// Appends the bytes of Text to the message.
  void update(std::string_view Text) { update(Text.data(), Text.size()); }

  /// Pads the message, returns its digest and resets to the empty message.
  Digest finish();

  /// Lower-case hexadecimal spelling of a digest (64 characters).
  static std::string hex(const Digest &D);

private:
  void compress(const uint8_t *Block);

  std::array<uint32_t, 8> State;
  std::array<uint8_t, 64> Buffer;
  size_t Buffered = 0;
  uint64_t TotalBytes = 0;
};

/// The SHA-256 digest of Text, as 64 lower-case hexadecimal characters.
std::string sha256Hex(std::string_view Text);

} // namespace kiln

#endif // KILN_RUNTIME_SHA256_H
