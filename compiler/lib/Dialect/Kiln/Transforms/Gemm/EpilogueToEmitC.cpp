//===- EpilogueToEmitC.cpp - Epilogue region -> EmitC function ------------===//
//
// Each op of the epilogue region maps to one EmitC op: arith float math to
// emitc arithmetic, kiln.relu/gelu/silu/round to calls into the templates'
// kiln/epilogue/ops.cuh, and kiln.load to a row-major subscript of a restrict
// pointer converted with kiln::to_float. Extents of loaded tensors are M or N
// by the index that addresses each dimension (sema guarantees they agree).
// A grouped GEMM's kiln.group_of is a subscript of its i32 ids; it is only
// ever a load's first index, whose extent (E) no subscript needs.
//
//===----------------------------------------------------------------------===//
#include "EpilogueToEmitC.h"

#include "kiln/Dialect/Kiln/IR/KilnTypes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::kiln;

std::string mlir::kiln::cudaTypeName(Type ElementType) {
  std::optional<::kiln::DType> T = dtypeOf(ElementType);
  return T ? std::string(::kiln::dtypeCudaName(*T)) : std::string("void");
}

Type mlir::kiln::operandParamType(MemRefType T) {
  return emitc::OpaqueType::get(T.getContext(),
                                "const " + cudaTypeName(T.getElementType()) +
                                    "* __restrict__");
}

namespace {

class EpilogueEmitter {
public:
  EpilogueEmitter(OpBuilder &B, TiledGemmOp Op) : B(B), Op(Op) {}

  FailureOr<emitc::FuncOp> build(StringRef Name);

private:
  LogicalResult lower(Operation &Inner);
  Value call(Location Loc, StringRef Callee, ValueRange Args,
             ArrayAttr TemplateArgs = {});
  Value linearIndex(Location Loc, mlir::kiln::LoadOp Load);

  OpBuilder &B;
  TiledGemmOp Op;
  IRMapping Map;
  Value M, N; ///< The function's extent parameters.
  /// The masked layout's number of experts, its epilogue's last parameter.
  Value Experts;
  /// The offsets form's tile expert, its epilogue's last parameter.
  Value TileExpert;
  Type F32, I32, I64;
};

Value EpilogueEmitter::call(Location Loc, StringRef Callee, ValueRange Args,
                            ArrayAttr TemplateArgs) {
  return B
      .create<emitc::CallOpaqueOp>(Loc, TypeRange{F32}, Callee, Args,
                                   ArrayAttr(), TemplateArgs)
      .getResult(0);
}

Value EpilogueEmitter::linearIndex(Location Loc, mlir::kiln::LoadOp Load) {
  Block &Body = Op.getEpilogueBlock();
  auto Extent = [&](Value Index) {
    return Index == Body.getArgument(1) ? M : N;
  };
  ValueRange Indices = Load.getIndices();
  if (Indices.empty())
    return B.create<emitc::LiteralOp>(Loc, I32, "0");
  Value Linear = Map.lookup(Indices[0]);
  for (size_t I = 1; I < Indices.size(); ++I) {
    Value Wide = B.create<emitc::CastOp>(Loc, I64, Linear);
    Value Scaled = B.create<emitc::MulOp>(Loc, I64, Wide, Extent(Indices[I]));
    Linear = B.create<emitc::AddOp>(Loc, I64, Scaled, Map.lookup(Indices[I]));
  }
  return Linear;
}

LogicalResult EpilogueEmitter::lower(Operation &Inner) {
  Location Loc = Inner.getLoc();
  // The verifier keeps outside values out of epilogues; never crash if one
  // slips through anyway.
  for (Value V : Inner.getOperands())
    if (!Map.contains(V))
      return Inner.emitError("uses a value defined outside the epilogue");
  auto Binary = [&](auto Tag) {
    using EmitOp = decltype(Tag);
    Map.map(Inner.getResult(0),
            B.create<EmitOp>(Loc, F32, Map.lookup(Inner.getOperand(0)),
                             Map.lookup(Inner.getOperand(1))));
    return success();
  };
  if (auto C = dyn_cast<arith::ConstantOp>(Inner)) {
    auto Value = dyn_cast<FloatAttr>(C.getValue());
    if (!Value || !Value.getType().isF32())
      return Inner.emitError("only f32 constants can be lowered, got ")
             << C.getValue();
    Map.map(C.getResult(), B.create<emitc::ConstantOp>(Loc, F32, Value));
    return success();
  }
  if (isa<arith::AddFOp>(Inner))
    return Binary(emitc::AddOp());
  if (isa<arith::SubFOp>(Inner))
    return Binary(emitc::SubOp());
  if (isa<arith::MulFOp>(Inner))
    return Binary(emitc::MulOp());
  if (isa<arith::DivFOp>(Inner))
    return Binary(emitc::DivOp());
  if (auto Neg = dyn_cast<arith::NegFOp>(Inner)) {
    Map.map(Neg.getResult(), B.create<emitc::UnaryMinusOp>(
                                 Loc, F32, Map.lookup(Neg.getOperand())));
    return success();
  }
  if (isa<ReluOp, GeluOp, SiluOp>(Inner)) {
    StringRef Callee = isa<ReluOp>(Inner)   ? "kiln::relu"
                       : isa<GeluOp>(Inner) ? "kiln::gelu"
                                            : "kiln::silu";
    Map.map(Inner.getResult(0),
            call(Loc, Callee, {Map.lookup(Inner.getOperand(0))}));
    return success();
  }
  if (auto Round = dyn_cast<RoundOp>(Inner)) {
    ArrayAttr TArgs = B.getArrayAttr(
        {emitc::OpaqueAttr::get(B.getContext(), cudaTypeName(Round.getTo()))});
    Map.map(Round.getResult(),
            call(Loc, "kiln::round_to", {Map.lookup(Round.getInput())}, TArgs));
    return success();
  }
  if (auto Load = dyn_cast<mlir::kiln::LoadOp>(Inner)) {
    Value Ptr = Map.lookup(Load.getTensor());
    if (!Ptr)
      return Load.emitError("loads only from the op's epilogue operands");
    std::string Elem =
        cudaTypeName(Load.getTensor().getType().getElementType());
    Type ElemType = emitc::OpaqueType::get(B.getContext(), Elem);
    Value Index = linearIndex(Loc, Load);
    Value Element =
        B.create<emitc::SubscriptOp>(Loc, ElemType, Ptr, ValueRange{Index});
    Map.map(Load.getResult(), call(Loc, "kiln::to_float", {Element}));
    return success();
  }
  if (auto Group = dyn_cast<GroupOfOp>(Inner)) { // (int32_t)ids[m]
    if (TileExpert) { // the offsets form: the kernel passes the tile's
      Map.map(Group.getResult(), TileExpert);
      return success();
    }
    if (Experts) { // the masked layout: row m is expert m / (M / E)'s
      Value Rows = B.create<emitc::DivOp>(Loc, I32, M, Experts);
      Map.map(
          Group.getResult(),
          B.create<emitc::DivOp>(Loc, I32, Map.lookup(Group.getRow()), Rows));
      return success();
    }
    Value Id = B.create<emitc::SubscriptOp>(
        Loc, emitc::OpaqueType::get(B.getContext(), "int32_t"),
        Map.lookup(Group.getIds()), ValueRange{Map.lookup(Group.getRow())});
    Map.map(Group.getResult(), B.create<emitc::CastOp>(Loc, I32, Id));
    return success();
  }
  if (auto Yield = dyn_cast<YieldOp>(Inner)) {
    B.create<emitc::ReturnOp>(Loc, Map.lookup(Yield.getValue()));
    return success();
  }
  return Inner.emitError("cannot lower '")
         << Inner.getName() << "' in a GEMM epilogue to CUDA";
}

FailureOr<emitc::FuncOp> EpilogueEmitter::build(StringRef Name) {
  MLIRContext *Ctx = B.getContext();
  F32 = B.getF32Type();
  I32 = B.getI32Type();
  I64 = B.getI64Type();
  // (acc, m, n, M, N, operands...[, E | expert]); a gated op's takes (acc,
  // up, m, n, ...).
  const bool Gated = bool(Op.getUpProjAttr());
  SmallVector<Type> Params = {F32, I32, I32, I32, I32};
  if (Gated)
    Params.insert(Params.begin() + 1, F32);
  for (Value V : Op.getEpilogueOperands())
    Params.push_back(operandParamType(cast<MemRefType>(V.getType())));
  // The masked layout's epilogue also takes E, last: a per-expert operand
  // reads expert m / (M / E).
  const bool Masked = Op.getGroupsAttr() && Op.getGroupsAttr().getMasked();
  // ... and the offsets form's the tile's expert, which the kernel passes
  // (OffsetGroups::kExpertArg).
  const bool Offsets = Op.getGroupsAttr() && Op.getGroupsAttr().getOffsets();
  if (Masked || Offsets)
    Params.push_back(I32);
  auto Fn = B.create<emitc::FuncOp>(Op.getLoc(), Name,
                                    FunctionType::get(Ctx, Params, {F32}));
  Fn.setSpecifiersAttr(
      B.getStrArrayAttr({"static", "__device__", "__forceinline__"}));
  Block *Entry = Fn.addEntryBlock();
  Block &Body = Op.getEpilogueBlock();
  const unsigned Shift = Gated ? 1 : 0;
  Map.map(Body.getArgument(0), Entry->getArgument(0));
  for (unsigned I = 1; I < 3; ++I)
    Map.map(Body.getArgument(I), Entry->getArgument(I + Shift));
  if (Gated)
    Map.map(Body.getArgument(3), Entry->getArgument(1));
  M = Entry->getArgument(3 + Shift);
  N = Entry->getArgument(4 + Shift);
  for (auto [I, V] : llvm::enumerate(Op.getEpilogueOperands()))
    Map.map(V, Entry->getArgument(5 + Shift + I));
  if (Masked)
    Experts = Entry->getArgument(Entry->getNumArguments() - 1);
  if (Offsets)
    TileExpert = Entry->getArgument(Entry->getNumArguments() - 1);

  OpBuilder::InsertionGuard Guard(B);
  B.setInsertionPointToStart(Entry);
  for (Operation &Inner : Body)
    if (failed(lower(Inner))) {
      Fn.erase();
      return failure();
    }
  return Fn;
}

} // namespace

FailureOr<emitc::FuncOp> mlir::kiln::buildEpilogueFunction(OpBuilder &B,
                                                           TiledGemmOp Op,
                                                           StringRef Name) {
  return EpilogueEmitter(B, Op).build(Name);
}
