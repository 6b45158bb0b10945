//===- DType.h - Element types kiln knows -----------------------*- C++ -*-===//
//
// The element types of the DSL, their spellings, sizes, and the names of the
// device types the templates use for them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_DTYPE_H
#define KILN_FRONTEND_DTYPE_H

#include <optional>
#include <string_view>

namespace kiln {

/// UE8M0 is OCP MX's E8M0: an unsigned power of two 2^(e - 127), 0xFF NaN;
/// kiln takes it for block scales only. I32 is for index tensors (a grouped
/// GEMM's expert of each row), never for values.
enum class DType { BF16, F16, F8E4M3, F8E5M2, F32, F4E2M1, UE8M0, I32 };

/// DSL spelling: "bf16", "f8e4m3", ...
std::string_view dtypeName(DType T);
/// Parses a DSL spelling; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view Name);
/// Storage size in bits (4 for f4e2m1).
unsigned dtypeBits(DType T);
/// The device type name used in emitted CUDA ("kiln::f8e4m3", "float", ...).
std::string_view dtypeCudaName(DType T);
bool isFloat8(DType T);
bool isIndexType(DType T);

} // namespace kiln

#endif // KILN_FRONTEND_DTYPE_H
