//===- KilnOps.cpp - kiln dialect operations and their verifiers ----------===//
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

bool isFp8(Type T) { return isa<Float8E4M3FNType, Float8E5M2Type>(T); }

/// Checks what kiln.gemm and kiln.tiled_gemm share: operand element types
/// the tensor cores accept and an epilogue of the right shape.
/// Each block scale names an f32 or ui8 (ue8m0 bits) epilogue operand of
/// rank 1 (k only) or 2 (a row and k), with positive block sizes, at most
/// one per side; a ui8 operand is only ever a block scale.
LogicalResult verifyKScales(Operation *Op, ArrayAttr Scales, OutQuantAttr Quant,
                            UpProjAttr Up, MemRefType B, MemRefType D,
                            ValueRange EpilogueOperands) {
  llvm::SmallVector<bool> IsScale(EpilogueOperands.size(), false);
  if (Up) {
    const int64_t W = Up.getWeight(), S = Up.getScale();
    const int64_t Count = int64_t(EpilogueOperands.size());
    // A grouped GEMM's up weight is [E, N, K] like its b.
    if (W < 0 || W >= Count ||
        cast<MemRefType>(EpilogueOperands[W].getType()).getRank() !=
            B.getRank() ||
        cast<MemRefType>(EpilogueOperands[W].getType()).getElementType() !=
            B.getElementType())
      return Op->emitOpError("up_proj weight ")
             << W << " must be an epilogue operand of b's rank " << B.getRank()
             << " and type " << B.getElementType();
    if (S != -1 && (S < 0 || S >= Count || S == W))
      return Op->emitOpError("up_proj scale ")
             << S << " must be another epilogue operand or -1";
    if (S != -1)
      IsScale[S] = true;
  }
  if (Quant) {
    int64_t I = Quant.getOperand();
    if (I < 0 || I >= int64_t(EpilogueOperands.size()))
      return Op->emitOpError("out_quant operand ")
             << I << " is not an epilogue operand";
    // One row of scales per row of d: [M, N / B], or the masked layout's
    // [E, M, N / B].
    auto T = cast<MemRefType>(EpilogueOperands[I].getType());
    if (T.getRank() != D.getRank() ||
        !(T.getElementType().isF32() ||
          T.getElementType().isUnsignedInteger(8)))
      return Op->emitOpError("out_quant operand ")
             << I << " must be an f32 or ui8 memref of d's rank " << D.getRank()
             << ", got " << T;
    if (Quant.getBlock() <= 0 || Quant.getBlock() % 8 != 0)
      return Op->emitOpError("out_quant block must be a positive multiple of "
                             "8, got ")
             << Quant.getBlock();
    IsScale[I] = true;
    if (int64_t A = Quant.getAmax(); A != -1) {
      if (A < 0 || A >= int64_t(EpilogueOperands.size()) || A == I ||
          cast<MemRefType>(EpilogueOperands[A].getType()).getRank() != 0 ||
          !cast<MemRefType>(EpilogueOperands[A].getType())
               .getElementType()
               .isF32())
        return Op->emitOpError("out_quant amax ")
               << A << " must be another epilogue operand, an f32 scalar";
    }
  }
  if (Scales)
    for (Attribute A : Scales) {
      int64_t I = cast<KScaleAttr>(A).getOperand();
      if (I >= 0 && I < int64_t(IsScale.size()))
        IsScale[I] = true;
    }
  for (auto [I, V] : llvm::enumerate(EpilogueOperands))
    if (!IsScale[I] &&
        cast<MemRefType>(V.getType()).getElementType().isUnsignedInteger(8))
      return Op->emitOpError("epilogue operand ")
             << I << " is ui8 (ue8m0 bits) but not a k_scale or out_quant";
  if (!Scales)
    return success();
  bool Side[2] = {false, false};
  for (Attribute A : Scales) {
    auto S = cast<KScaleAttr>(A);
    if (S.getOperand() < 0 ||
        S.getOperand() >= int64_t(EpilogueOperands.size()))
      return Op->emitOpError("k_scale operand ")
             << S.getOperand() << " is not an epilogue operand";
    auto T = cast<MemRefType>(EpilogueOperands[S.getOperand()].getType());
    // A grouped scale has the expert as its leading dimension, and so has
    // a batched one (the masked layout's A side).
    if (S.getGrouped() && S.getBatched())
      return Op->emitOpError("a k_scale is grouped (per expert, n side) or "
                             "batched (masked rows, m side), not both");
    if (S.getBatched() && (S.getNSide() || !S.getHasRow()))
      return Op->emitOpError("a batched k_scale is the m side's, with a row");
    const bool Lead = S.getGrouped() || S.getBatched();
    int64_t Rank = (S.getHasRow() ? 2 : 1) + (Lead ? 1 : 0);
    if (T.getRank() != Rank || !(T.getElementType().isF32() ||
                                 T.getElementType().isUnsignedInteger(8)))
      return Op->emitOpError("k_scale operand ")
             << S.getOperand() << " must be an f32 or ui8 memref of rank "
             << Rank << ", got " << T;
    if (S.getKDim() < 0 || S.getKDim() >= Rank || S.getKDiv() <= 0 ||
        S.getRowDiv() <= 0)
      return Op->emitOpError("k_scale of operand ")
             << S.getOperand() << " needs k_dim < rank and positive divisors";
    if (Lead && S.getKDim() == 0)
      return Op->emitOpError("a grouped or batched k_scale's dimension 0 is "
                             "the expert; k_dim must be 1 or more");
    if (S.getGrouped() && !S.getNSide())
      return Op->emitOpError("a grouped k_scale (one per expert) belongs to "
                             "the n side");
    if (Side[S.getNSide()])
      return Op->emitOpError("two k_scales for the ")
             << (S.getNSide() ? "n" : "m") << " side";
    Side[S.getNSide()] = true;
  }
  return success();
}

/// A grouped GEMM (`groups`) has B [E, N, K] and an i32 [M] ids operand;
/// only its ids are i32, and only its scales are grouped. Without `groups`,
/// B is a matrix and nothing is per expert.
LogicalResult verifyGroups(Operation *Op, GroupsAttr Groups, ArrayAttr Scales,
                           MemRefType A, MemRefType B, MemRefType D,
                           ValueRange EpilogueOperands) {
  const int64_t Count = int64_t(EpilogueOperands.size());
  // Only the masked layout's a and d hold a block of rows per expert.
  const int64_t RowsRank = Groups && Groups.getMasked() ? 3 : 2;
  if (A.getRank() != RowsRank || D.getRank() != RowsRank)
    return Op->emitOpError(RowsRank == 3
                               ? "a masked grouped GEMM's a and d are [E, M, "
                                 "K] and [E, M, N], got "
                               : "a and d are matrices (rank 3 is a masked "
                                 "grouped GEMM's), got ")
           << A << " and " << D;
  if (Groups) {
    if (B.getRank() != 3)
      return Op->emitOpError("a grouped GEMM's b is [E, N, K], got ") << B;
    const int64_t I = Groups.getOperand();
    if (I < 0 || I >= Count)
      return Op->emitOpError("groups operand ")
             << I << " is not an epilogue operand";
    auto T = cast<MemRefType>(EpilogueOperands[I].getType());
    if (T.getRank() != 1 || !T.getElementType().isSignlessInteger(32))
      return Op->emitOpError("groups operand ")
             << I << " must be an i32 memref of rank 1, got " << T;
    if (Groups.getAlign() <= 0)
      return Op->emitOpError("groups align must be positive, got ")
             << Groups.getAlign();
    if (Groups.getOffsets() && Groups.getAlign() != 1)
      return Op->emitOpError("offset groups are not aligned: align must be "
                             "1, got ")
             << Groups.getAlign();
    if (Groups.getMasked() && (Groups.getAlign() != 1 || Groups.getOffsets()))
      return Op->emitOpError("masked groups are neither aligned nor offsets: "
                             "align must be 1 and offsets false");
    if ((Groups.getOffsets() || Groups.getMasked()) && !T.isDynamicDim(0) &&
        !B.isDynamicDim(0) && T.getDimSize(0) != B.getDimSize(0))
      return Op->emitOpError("groups operand ")
             << I << " holds one " << (Groups.getMasked() ? "count" : "offset")
             << " per expert: " << T.getDimSize(0)
             << (Groups.getMasked() ? " counts" : " offsets") << " for "
             << B.getDimSize(0) << " experts";
  } else if (B.getRank() != 2) {
    return Op->emitOpError("b of rank 3 needs a groups attribute");
  }
  for (auto [I, V] : llvm::enumerate(EpilogueOperands))
    if (cast<MemRefType>(V.getType()).getElementType().isSignlessInteger(32) &&
        !(Groups && int64_t(I) == Groups.getOperand()))
      return Op->emitOpError("epilogue operand ")
             << I << " is i32 but not the groups operand";
  if (Scales)
    for (Attribute S : Scales) {
      auto K = cast<KScaleAttr>(S);
      if (K.getGrouped() && !Groups)
        return Op->emitOpError("a grouped k_scale needs a groups attribute");
      if (K.getBatched() && !(Groups && Groups.getMasked()))
        return Op->emitOpError("a batched k_scale needs masked groups");
    }
  return success();
}

LogicalResult verifyGemmCommon(Operation *Op, MemRefType A, MemRefType B,
                               MemRefType D, ValueRange EpilogueOperands,
                               Region &Epilogue, bool Gated,
                               GroupsAttr Groups) {
  Type TA = A.getElementType(), TB = B.getElementType();
  bool BothFp8 = isFp8(TA) && isFp8(TB);
  bool Same16 = TA == TB && (TA.isBF16() || TA.isF16());
  if (!BothFp8 && !Same16)
    return Op->emitOpError("operand types ")
           << TA << " x " << TB
           << " have no tensor-core MMA (both f8, or both bf16, or both f16)";
  if (D.getElementType().isF32() == false && !D.getElementType().isBF16() &&
      !D.getElementType().isF16() && !isFp8(D.getElementType()))
    return Op->emitOpError("result element type ")
           << D.getElementType()
           << " is not bf16, f16, f32, f8E4M3FN or f8E5M2";
  Block &Body = Epilogue.front();
  if (Body.getNumArguments() != (Gated ? 4u : 3u) ||
      !Body.getArgument(0).getType().isF32() ||
      !Body.getArgument(1).getType().isIndex() ||
      !Body.getArgument(2).getType().isIndex() ||
      (Gated && !Body.getArgument(3).getType().isF32()))
    return Op->emitOpError(Gated ? "epilogue must take (acc: f32, m: index, "
                                   "n: index, up: f32) with up_proj"
                                 : "epilogue must take (acc: f32, m: index, "
                                   "n: index)");
  if (Body.empty() || !isa<YieldOp>(Body.back()))
    return Op->emitOpError("epilogue must end in kiln.yield");
  // The epilogue is a per-element function of (acc, m, n) and the epilogue
  // operands: it may use nothing else from outside its region, and it loads
  // only at (m, n) coordinates.
  // A grouped GEMM's epilogue may also index a per-expert operand by the
  // expert of row m (kiln.group_of of its ids), as its first index.
  for (Operation &Inner : Body) {
    for (Value V : Inner.getOperands()) {
      bool Inside = V.getParentRegion() == &Epilogue;
      bool Operand = llvm::is_contained(EpilogueOperands, V);
      if (!Inside && !(Operand && isa<LoadOp, GroupOfOp>(Inner)))
        return Inner.emitOpError("in a GEMM epilogue may only use values of "
                                 "the epilogue and, in kiln.load or "
                                 "kiln.group_of, its epilogue operands");
    }
    if (auto Group = dyn_cast<GroupOfOp>(Inner)) {
      if (!Groups || Group.getIds() != EpilogueOperands[Groups.getOperand()])
        return Group.emitOpError("reads the ids of the GEMM's groups only");
      if (Group.getRow() != Body.getArgument(1))
        return Group.emitOpError("in a GEMM epilogue takes its m argument");
    }
    if (auto Load = dyn_cast<LoadOp>(Inner)) {
      if (!llvm::is_contained(EpilogueOperands, Load.getTensor()))
        return Load.emitOpError("loads only from the GEMM's epilogue operands");
      for (auto [I, Index] : llvm::enumerate(Load.getIndices()))
        if (Index != Body.getArgument(1) && Index != Body.getArgument(2) &&
            !(I == 0 && Index.getDefiningOp<GroupOfOp>()))
          return Load.emitOpError("indices in a GEMM epilogue must be its m or "
                                  "n argument, or first a kiln.group_of");
    }
  }
  return success();
}

} // namespace

LogicalResult GemmOp::verify() {
  if (failed(verifyKScales(*this, getKScalesAttr(), getOutQuantAttr(),
                           getUpProjAttr(), getB().getType(), getD().getType(),
                           getEpilogueOperands())) ||
      failed(verifyGroups(*this, getGroupsAttr(), getKScalesAttr(),
                          getA().getType(), getB().getType(), getD().getType(),
                          getEpilogueOperands())))
    return failure();
  return verifyGemmCommon(*this, getA().getType(), getB().getType(),
                          getD().getType(), getEpilogueOperands(),
                          getEpilogue(), bool(getUpProjAttr()),
                          getGroupsAttr());
}

LogicalResult TiledGemmOp::verify() {
  if (failed(verifyKScales(*this, getKScalesAttr(), getOutQuantAttr(),
                           getUpProjAttr(), getB().getType(), getD().getType(),
                           getEpilogueOperands())) ||
      failed(verifyGroups(*this, getGroupsAttr(), getKScalesAttr(),
                          getA().getType(), getB().getType(), getD().getType(),
                          getEpilogueOperands())))
    return failure();
  if (failed(verifyGemmCommon(*this, getA().getType(), getB().getType(),
                              getD().getType(), getEpilogueOperands(),
                              getEpilogue(), bool(getUpProjAttr()),
                              getGroupsAttr())))
    return failure();
  KernelPlanAttr Plan = getPlanAttr();
  if (!Plan)
    return success();
  if (getConfig().getBlockK() == 0)
    return emitOpError("a planned op needs a resolved block_k, got 0");
  if (Plan.getThreads() <= 0 || Plan.getThreads() % 32 != 0)
    return emitOpError("plan threads must be a positive multiple of 32, got ")
           << Plan.getThreads();
  if (Plan.getPath() != "sm90_tma_wgmma" &&
      Plan.getPath() != "sm80_cp_async_mma")
    return emitOpError("unknown kernel path '") << Plan.getPath() << "'";
  if (getKScalesAttr() && getConfig().getPromote() == 0)
    return emitOpError("a planned block-scaled op needs a promote interval");
  if (Plan.getPath() == "sm90_tma_wgmma" && Plan.getArch() != "sm_90a")
    return emitOpError("the TMA + wgmma path runs only on sm_90a, not ")
           << Plan.getArch();
  TileConfigAttr C = getConfig();
  if (Plan.getPath() == "sm80_cp_async_mma" &&
      (Plan.getWarpsM() <= 0 || Plan.getWarpsN() <= 0 ||
       Plan.getThreads() != 32 * Plan.getWarpsM() * Plan.getWarpsN()))
    return emitOpError("an mma.sync plan needs warps_m, warps_n > 0 and "
                       "threads = 32 * warps_m * warps_n");
  if (C.getClusterM() > 2 || C.getClusterN() > 2 ||
      C.getClusterM() * C.getClusterN() > 2)
    return emitOpError("a planned cluster has at most 2 CTAs, got ")
           << C.getClusterM() << "x" << C.getClusterN();
  return success();
}

LogicalResult RouteOp::verify() {
  if (getScore() != "softmax" && getScore() != "sigmoid")
    return emitOpError("score must be \"softmax\" or \"sigmoid\", got \"")
           << getScore() << "\"";
  const int64_t G = getGroups(), Keep = getKeep();
  if (G < 0 || G > 32 || (G == 0 ? Keep != 0 : Keep < 1 || Keep > G))
    return emitOpError("needs 0 <= groups <= 32 and, with groups, 1 <= keep "
                       "<= groups (keep = 0 without), got groups = ")
           << G << ", keep = " << Keep;
  if (!(getScale().convertToDouble() > 0))
    return emitOpError("scale must be positive");
  if (std::optional<int64_t> BM = getBlockM();
      BM && (*BM < 4 || *BM > 1024 || *BM % 4 != 0))
    return emitOpError("block_m (tokens per CTA) must be a multiple of 4 in "
                       "[4, 1024], got ")
           << *BM;
  return success();
}

LogicalResult PermuteOp::verify() {
  Type X = getX().getType().getElementType();
  Type A = getA().getType().getElementType();
  if (!getScales()) {
    if (getQuantBlock())
      return emitOpError("quant_block needs the scales operand");
    if (X != A)
      return emitOpError("x and a must have one element type");
  } else {
    std::optional<int64_t> B = getQuantBlock();
    if (!B || *B < 1)
      return emitOpError("a quantizing permutation needs a positive "
                         "quant_block");
    if (!isFp8(A) || !(X.isBF16() || X.isF16() || X.isF32()))
      return emitOpError("a quantizing permutation reads bf16, f16 or f32 "
                         "rows and writes FP8, got ")
             << X << " -> " << A;
  }
  const int64_t Align = getAlign();
  if (Align < 1 || Align > (int64_t(1) << 20) || (Align & (Align - 1)) != 0)
    return emitOpError("align must be a power of two up to 2^20, got ")
           << Align;
  if (std::optional<int64_t> BM = getBlockM(); BM && (*BM < 1 || *BM > 1024))
    return emitOpError("block_m (tokens per CTA) must be in [1, 1024], got ")
           << *BM;
  return success();
}

LogicalResult CombineOp::verify() {
  if (std::optional<int64_t> BM = getBlockM(); BM && (*BM < 1 || *BM > 1024))
    return emitOpError("block_m (tokens per CTA) must be in [1, 1024], got ")
           << *BM;
  return success();
}

LogicalResult AttentionOp::verify() {
  auto Elem = [](Value V) {
    return cast<MemRefType>(V.getType()).getElementType();
  };
  if (Elem(getQ()) != Elem(getK()) || Elem(getQ()) != Elem(getV()))
    return emitOpError("q, k and v must have one element type");
  if (bool(getCuQ()) != bool(getCuK()))
    return emitOpError("cu_q and cu_k come together (the varlen form)");
  // The varlen form packs the sequences along the rows: one rank less.
  const int64_t Rank = getCuQ() ? 3 : 4;
  auto RankOf = [](Value V) { return cast<MemRefType>(V.getType()).getRank(); };
  for (Value V : {getQ(), getK(), getV(), getO()})
    if (RankOf(V) != Rank)
      return emitOpError(getCuQ() ? "the varlen form's q, k, v and o are "
                                    "rank 3 ([rows, heads, dim])"
                                  : "q, k, v and o are rank 4 ([batch, "
                                    "heads, rows, dim]) without cu_q")
             << ", got rank " << RankOf(V);
  if (getLse() && RankOf(getLse()) != Rank - 1)
    return emitOpError("lse is rank ") << Rank - 1 << " in this form";
  for (int64_t Dim : {getHeadDim(), getValueDim()})
    if (Dim < 32 || Dim > 256 || Dim % 32 != 0)
      return emitOpError("head dims must be multiples of 32 in [32, 256], "
                         "got ")
             << Dim;
  if (getScale().convertToDouble() <= 0)
    return emitOpError("the softmax scale must be positive");
  // I64Attr's getters are unsigned: the window's -1 needs the cast.
  if (int64_t(getLeft()) < -1 || int64_t(getRight()) < -1)
    return emitOpError("a window's left and right are keys (>= 0) or -1");
  if (std::optional<int64_t> BM = getBlockM();
      BM && (*BM < 16 || *BM > 256 || *BM % 16 != 0))
    return emitOpError("block_m must be a multiple of 16 in [16, 256], got ")
           << *BM;
  if (std::optional<int64_t> BN = getBlockN();
      BN && (*BN < 16 || *BN > 256 || *BN % 16 != 0))
    return emitOpError("block_n must be a multiple of 16 in [16, 256], got ")
           << *BN;
  if (std::optional<int64_t> St = getStages(); St && (*St < 1 || *St > 4))
    return emitOpError("stages must be in [1, 4], got ") << *St;
  if (getBlockM().has_value() != getBlockN().has_value() ||
      getBlockM().has_value() != getStages().has_value())
    return emitOpError("block_m, block_n and stages come together (the "
                       "tiled form)");
  if (getIntraOverlap() && !getBlockM())
    return emitOpError("intra_overlap is the tiled form's (with block_m, "
                       "block_n and stages)");
  if (getPingpong() && !getIntraOverlap())
    return emitOpError("pingpong comes with intra_overlap (the warpgroups "
                       "take turns with their overlapped batches)");
  return success();
}

LogicalResult LoadOp::verify() {
  int64_t Rank = getTensor().getType().getRank();
  if (static_cast<int64_t>(getIndices().size()) != Rank)
    return emitOpError("expects ") << Rank << " indices for a rank-" << Rank
                                   << " tensor, got " << getIndices().size();
  return success();
}

LogicalResult RoundOp::verify() {
  Type T = getTo();
  if (!T.isBF16() && !T.isF16() && !T.isF32() && !isFp8(T))
    return emitOpError("cannot round to ") << T;
  return success();
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
