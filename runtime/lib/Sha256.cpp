//===- Sha256.cpp - SHA-256 message digest (FIPS 180-4) -------------------===//
//
// Written from the standard: constants (4.2.2), initial hash value (5.3.3),
// padding (5.1.1), message schedule and compression (6.2.2).
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/Sha256.h"

#include <algorithm>
#include <cstring>

namespace kiln {

namespace {

// The first 32 bits of the fractional parts of the cube roots of the first
// 64 primes (FIPS 180-4, 4.2.2).
constexpr uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// The first 32 bits of the fractional parts of the square roots of the first
// 8 primes (FIPS 180-4, 5.3.3).
constexpr uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

inline uint32_t rotr(uint32_t X, unsigned N) {
  return (X >> N) | (X << (32 - N));
}
// The six logical functions of FIPS 180-4, 4.1.2.
inline uint32_t ch(uint32_t X, uint32_t Y, uint32_t Z) {
  return (X & Y) ^ (~X & Z);
}
inline uint32_t maj(uint32_t X, uint32_t Y, uint32_t Z) {
  return (X & Y) ^ (X & Z) ^ (Y & Z);
}
inline uint32_t bigSigma0(uint32_t X) {
  return rotr(X, 2) ^ rotr(X, 13) ^ rotr(X, 22);
}
inline uint32_t bigSigma1(uint32_t X) {
  return rotr(X, 6) ^ rotr(X, 11) ^ rotr(X, 25);
}
inline uint32_t smallSigma0(uint32_t X) {
  return rotr(X, 7) ^ rotr(X, 18) ^ (X >> 3);
}
inline uint32_t smallSigma1(uint32_t X) {
  return rotr(X, 17) ^ rotr(X, 19) ^ (X >> 10);
}

} // namespace

Sha256::Sha256() { std::memcpy(State.data(), H0, sizeof(H0)); }

void Sha256::compress(const uint8_t *Block) {
  uint32_t W[64];
  for (int T = 0; T < 16; ++T)
    W[T] = uint32_t(Block[4 * T]) << 24 | uint32_t(Block[4 * T + 1]) << 16 |
           uint32_t(Block[4 * T + 2]) << 8 | uint32_t(Block[4 * T + 3]);
  for (int T = 16; T < 64; ++T)
    W[T] =
        smallSigma1(W[T - 2]) + W[T - 7] + smallSigma0(W[T - 15]) + W[T - 16];

  uint32_t A = State[0], B = State[1], C = State[2], D = State[3];
  uint32_t E = State[4], F = State[5], G = State[6], H = State[7];
  for (int T = 0; T < 64; ++T) {
    uint32_t T1 = H + bigSigma1(E) + ch(E, F, G) + K[T] + W[T];
    uint32_t T2 = bigSigma0(A) + maj(A, B, C);
    H = G;
    G = F;
    F = E;
    E = D + T1;
    D = C;
    C = B;
    B = A;
    A = T1 + T2;
  }
  State[0] += A;
  State[1] += B;
  State[2] += C;
  State[3] += D;
  State[4] += E;
  State[5] += F;
  State[6] += G;
  State[7] += H;
}

void Sha256::update(const void *Data, size_t Size) {
  const uint8_t *In = static_cast<const uint8_t *>(Data);
  TotalBytes += Size;
  if (Buffered > 0) {
    size_t Take = std::min(Size, Buffer.size() - Buffered);
    std::memcpy(Buffer.data() + Buffered, In, Take);
    Buffered += Take;
    In += Take;
    Size -= Take;
    if (Buffered < Buffer.size())
      return;
    compress(Buffer.data());
    Buffered = 0;
  }
  for (; Size >= 64; In += 64, Size -= 64)
    compress(In);
  std::memcpy(Buffer.data(), In, Size);
  Buffered = Size;
}

Sha256::Digest Sha256::finish() {
  // Padding (5.1.1): a 1 bit, zeros up to 56 mod 64 bytes, then the message
  // length in bits as a 64-bit big-endian integer.
  uint64_t Bits = TotalBytes * 8;
  uint8_t Pad[72] = {0x80};
  size_t PadLen = (Buffered < 56 ? 56 : 120) - Buffered;
  for (int I = 0; I < 8; ++I)
    Pad[PadLen + I] = uint8_t(Bits >> (56 - 8 * I));
  update(Pad, PadLen + 8);

  Digest D;
  for (int I = 0; I < 8; ++I)
    for (int J = 0; J < 4; ++J)
      D[4 * I + J] = uint8_t(State[I] >> (24 - 8 * J));
  *this = Sha256();
  return D;
}

std::string Sha256::hex(const Digest &D) {
  static const char Digits[] = "0123456789abcdef";
  std::string S;
  S.reserve(2 * D.size());
  for (uint8_t B : D) {
    S.push_back(Digits[B >> 4]);
    S.push_back(Digits[B & 15]);
  }
  return S;
}

std::string sha256Hex(std::string_view Text) {
  Sha256 H;
  H.update(Text);
  return Sha256::hex(H.finish());
}

} // namespace kiln
