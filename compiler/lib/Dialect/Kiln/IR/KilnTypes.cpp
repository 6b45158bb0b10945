//===- KilnTypes.cpp - kiln dtypes <-> MLIR element types -----------------===//
#include "kiln/Dialect/Kiln/IR/KilnTypes.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln {

using ::kiln::DType;

Type elementTypeOf(DType T, MLIRContext *Ctx) {
  Builder B(Ctx);
  switch (T) {
  case DType::BF16:
    return B.getBF16Type();
  case DType::F16:
    return B.getF16Type();
  case DType::F32:
    return B.getF32Type();
  case DType::F8E4M3:
    return B.getType<Float8E4M3FNType>();
  case DType::F8E5M2:
    return B.getType<Float8E5M2Type>();
  case DType::F4E2M1:
    return Type();
  case DType::UE8M0: // MLIR 19 has no E8M0 float type: its bits as ui8
    return IntegerType::get(Ctx, 8, IntegerType::Unsigned);
  case DType::I32:
    return IntegerType::get(Ctx, 32, IntegerType::Signless);
  }
  return Type();
}

std::optional<DType> dtypeOf(Type T) {
  if (T.isBF16())
    return DType::BF16;
  if (T.isF16())
    return DType::F16;
  if (T.isF32())
    return DType::F32;
  if (isa<Float8E4M3FNType>(T))
    return DType::F8E4M3;
  if (isa<Float8E5M2Type>(T))
    return DType::F8E5M2;
  if (T.isUnsignedInteger(8))
    return DType::UE8M0;
  if (T.isSignlessInteger(32))
    return DType::I32;
  return std::nullopt;
}

} // namespace mlir::kiln
