//===- Npy.cpp - NumPy .npy files of host tensors -------------------------===//
#include "kiln/Interpreter/Npy.h"

#include "kiln/Interpreter/Numeric.h"

#include <cstring>

namespace kiln {

namespace {

/// Magic, version 1.0, header length, and the header dict padded with
/// spaces and a newline so the data starts at a multiple of 64 bytes.
std::string npyHeader(const std::string &Descr,
                      const std::vector<int64_t> &Shape) {
  std::string Dims; // "()", "(3,)", "(3, 4)"
  for (size_t I = 0; I < Shape.size(); ++I)
    Dims += (I ? ", " : "") + std::to_string(Shape[I]);
  if (Shape.size() == 1)
    Dims += ",";
  std::string Dict = "{'descr': '" + Descr +
                     "', 'fortran_order': False, 'shape': (" + Dims + "), }";
  size_t Total = 10 + Dict.size() + 1;
  Dict.append((64 - Total % 64) % 64, ' ');
  Dict += '\n';
  std::string H = "\x93NUMPY";
  H += '\x01';
  H += '\x00';
  H += char(Dict.size() & 0xFF);
  H += char(Dict.size() >> 8);
  return H + Dict;
}

} // namespace

std::string npyDescr(DType T) {
  switch (hostBytes(T)) {
  case 1:
    return "|u1";
  case 2:
    return "<u2";
  default:
    return "<f4";
  }
}

std::string npyBytes(const HostTensor &T) {
  std::string Out = npyHeader(npyDescr(T.Type), T.Shape);
  Out.append(reinterpret_cast<const char *>(T.Bytes.data()), T.Bytes.size());
  return Out;
}

std::string npyBytes(const std::vector<double> &Values,
                     const std::vector<int64_t> &Shape) {
  std::string Out = npyHeader("<f8", Shape);
  for (double V : Values) {
    uint64_t U;
    std::memcpy(&U, &V, 8);
    for (int I = 0; I < 8; ++I)
      Out += char(U >> (8 * I));
  }
  return Out;
}

} // namespace kiln
