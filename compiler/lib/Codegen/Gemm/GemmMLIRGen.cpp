//===- GemmMLIRGen.cpp - A GEMM-family OpModel -> kiln.gemm ---------------===//
//
// The GEMM family's op-level MLIR: one func.func whose arguments are the
// op's tensors as memrefs, holding one kiln.gemm with the fused epilogue in
// its region (block scales, up projection, groups and quantized output as
// its attributes).
//
//===----------------------------------------------------------------------===//
#include "GemmMLIRGen.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnTypes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {

namespace {

class Generator {
public:
  Generator(MLIRContext &Ctx, const OpModel &Op, const std::string &File)
      : Ctx(Ctx), B(&Ctx), Op(Op), File(File) {}

  OwningOpRef<ModuleOp> run();

private:
  Location loc(SourceLoc L) {
    if (!L.isValid())
      return UnknownLoc::get(&Ctx);
    return FileLineColLoc::get(&Ctx, File, L.Line, L.Col);
  }
  Value emit(const EpiExpr &E);

  MLIRContext &Ctx;
  OpBuilder B;
  const OpModel &Op;
  std::string File;
  SmallVector<Value> ParamValues; ///< The func's arguments.
  Block *Epilogue = nullptr;
};

Value Generator::emit(const EpiExpr &E) {
  using K = EpiExpr::Kind;
  Location L = loc(E.Loc);
  auto Arg = [&](size_t I) { return emit(*E.Operands[I]); };
  switch (E.K) {
  case K::Acc:
    return Epilogue->getArgument(0);
  case K::UpAcc:
    return Epilogue->getArgument(3);
  case K::Const:
    return B.create<arith::ConstantOp>(L, B.getF32FloatAttr(E.Value));
  case K::Load: {
    SmallVector<Value> Indices;
    for (EpiIndex I : E.Indices)
      Indices.push_back(
          I == EpiIndex::G
              ? B.create<mlir::kiln::GroupOfOp>(L, ParamValues[Op.Group->Param],
                                                Epilogue->getArgument(1))
                    .getResult()
              : Value(Epilogue->getArgument(I == EpiIndex::M ? 1 : 2)));
    return B.create<mlir::kiln::LoadOp>(L, ParamValues[E.Param], Indices);
  }
  case K::Add:
  case K::Sub:
  case K::Mul:
  case K::Div: {
    // Operands in source order (argument evaluation order is unspecified).
    Value L0 = Arg(0);
    Value R0 = Arg(1);
    if (E.K == K::Add)
      return B.create<arith::AddFOp>(L, L0, R0);
    if (E.K == K::Sub)
      return B.create<arith::SubFOp>(L, L0, R0);
    if (E.K == K::Mul)
      return B.create<arith::MulFOp>(L, L0, R0);
    return B.create<arith::DivFOp>(L, L0, R0);
  }
  case K::Neg:
    return B.create<arith::NegFOp>(L, Arg(0));
  case K::Relu:
    return B.create<mlir::kiln::ReluOp>(L, Arg(0));
  case K::Gelu:
    return B.create<mlir::kiln::GeluOp>(L, Arg(0));
  case K::Silu:
    return B.create<mlir::kiln::SiluOp>(L, Arg(0));
  case K::Cast:
    return B.create<mlir::kiln::RoundOp>(
        L, Arg(0), TypeAttr::get(mlir::kiln::elementTypeOf(E.CastType, &Ctx)));
  }
  return Value();
}

OwningOpRef<ModuleOp> Generator::run() {
  OwningOpRef<ModuleOp> Module = ModuleOp::create(loc(Op.Loc));
  B.setInsertionPointToEnd(Module->getBody());
  SmallVector<Type> ArgTypes;
  for (const TensorParam &P : Op.Params) {
    SmallVector<int64_t> Shape(P.Shape.size(), ShapedType::kDynamic);
    ArgTypes.push_back(
        MemRefType::get(Shape, mlir::kiln::elementTypeOf(P.Type, &Ctx)));
  }
  auto Fn = B.create<func::FuncOp>(loc(Op.Loc), Op.Name,
                                   B.getFunctionType(ArgTypes, {}));
  Block *Entry = Fn.addEntryBlock();
  for (BlockArgument A : Entry->getArguments())
    ParamValues.push_back(A);
  B.setInsertionPointToStart(Entry);

  SmallVector<Value> Operands;
  std::vector<int64_t> OperandOf(Op.Params.size(), -1);
  for (size_t I = 0; I < Op.Params.size(); ++I)
    if (int(I) != Op.A && int(I) != Op.B && int(I) != Op.D) {
      OperandOf[I] = int64_t(Operands.size());
      Operands.push_back(ParamValues[I]);
    }
  ArrayAttr KScales;
  if (!Op.KScales.empty()) {
    SmallVector<Attribute> Scales;
    for (const KScale &S : Op.KScales)
      Scales.push_back(mlir::kiln::KScaleAttr::get(
          &Ctx, OperandOf[size_t(S.Param)], S.Row == EpiIndex::N, S.HasRow,
          S.RowDiv, S.KDiv, S.KDim, S.Grouped, S.Batched));
    KScales = B.getArrayAttr(Scales);
  }
  mlir::kiln::OutQuantAttr Quant;
  if (Op.Quant)
    Quant = mlir::kiln::OutQuantAttr::get(
        &Ctx, OperandOf[size_t(Op.Quant->Scale)], Op.Quant->Block,
        Op.Quant->Amax >= 0 ? OperandOf[size_t(Op.Quant->Amax)] : -1);
  mlir::kiln::UpProjAttr Up;
  if (Op.Up)
    Up = mlir::kiln::UpProjAttr::get(
        &Ctx, OperandOf[size_t(Op.Up->Param)],
        Op.Up->Scale >= 0 ? OperandOf[size_t(Op.Up->Scale)] : -1);
  mlir::kiln::GroupsAttr Groups;
  if (Op.Group)
    Groups = mlir::kiln::GroupsAttr::get(
        &Ctx, OperandOf[size_t(Op.Group->Param)], Op.Group->Align,
        Op.Group->Offsets, Op.Group->Masked);
  auto Gemm = B.create<mlir::kiln::GemmOp>(
      loc(Op.Loc), ParamValues[Op.A], ParamValues[Op.B], ParamValues[Op.D],
      Operands, KScales, Quant, Up, Groups);
  Location L = Gemm.getLoc();
  SmallVector<Type> EpiArgs = {B.getF32Type(), B.getIndexType(),
                               B.getIndexType()};
  if (Op.Up)
    EpiArgs.push_back(B.getF32Type()); // the up projection's accumulator
  SmallVector<Location> EpiLocs(EpiArgs.size(), L);
  Epilogue = B.createBlock(&Gemm.getEpilogue(), {}, EpiArgs, EpiLocs);
  Value Result = Op.Epilogue ? emit(*Op.Epilogue) : Epilogue->getArgument(0);
  B.create<mlir::kiln::YieldOp>(L, Result);
  B.setInsertionPointAfter(Gemm);
  B.create<func::ReturnOp>(loc(Op.Loc));
  return Module;
}

} // namespace

OwningOpRef<ModuleOp> generateGemmModule(MLIRContext &Ctx, const OpModel &Op,
                                         const std::string &FileName) {
  return Generator(Ctx, Op, FileName).run();
}

} // namespace kiln
