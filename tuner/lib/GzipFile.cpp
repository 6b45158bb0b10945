//===- GzipFile.cpp - Read a file, inflating it when it is gzip'd ---------===//
#include "kiln/Tuner/ReplayEvaluator.h"

#include <zlib.h>

#include "kiln/Runtime/FileKind.h"

#include <stdexcept>

namespace kiln::tuner {

namespace {
std::string inflateGzip(const std::string &In, const std::string &File) {
  std::string Out;
  z_stream Z{};
  if (inflateInit2(&Z, 16 + MAX_WBITS) != Z_OK)
    throw std::runtime_error(File + ": cannot start zlib");
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(In.data()));
  Z.avail_in = uInt(In.size());
  char Chunk[1 << 16];
  int Rc = Z_OK;
  for (;;) {
    Z.next_out = reinterpret_cast<Bytef *>(Chunk);
    Z.avail_out = sizeof(Chunk);
    Rc = inflate(&Z, Z_NO_FLUSH);
    Out.append(Chunk, sizeof(Chunk) - Z.avail_out);
    if (Rc == Z_STREAM_END) {
      // Concatenated gzip members are one stream (as gunzip reads them);
      // anything else after a member is not gzip data.
      if (Z.avail_in == 0)
        break;
      if (Z.avail_in < 2 || Z.next_in[0] != 0x1f || Z.next_in[1] != 0x8b) {
        std::string Left = std::to_string(Z.avail_in);
        inflateEnd(&Z);
        throw std::runtime_error(File + ": " + Left +
                                 " bytes after the end of the gzip data");
      }
      inflateReset(&Z);
      continue;
    }
    if (Rc == Z_BUF_ERROR && Z.avail_in == 0) {
      inflateEnd(&Z);
      throw std::runtime_error(File + ": truncated gzip data (the stream "
                                      "ends before its last block)");
    }
    if (Rc != Z_OK && Rc != Z_BUF_ERROR) {
      std::string Msg = Z.msg ? Z.msg : "error " + std::to_string(Rc);
      inflateEnd(&Z);
      throw std::runtime_error(File + ": corrupt gzip data: " + Msg);
    }
  }
  inflateEnd(&Z);
  return Out;
}
} // namespace

std::string readMaybeGzipped(const std::string &File) {
  std::string Bytes, Why;
  if (readRegularFile(File, Bytes, Why) != ReadResult::Ok)
    throw std::runtime_error(File + ": cannot read: " + Why);
  if (Bytes.size() >= 2 && uint8_t(Bytes[0]) == 0x1f &&
      uint8_t(Bytes[1]) == 0x8b)
    return inflateGzip(Bytes, File);
  return Bytes;
}

} // namespace kiln::tuner
