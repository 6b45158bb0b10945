//===- OpModel.h - The checked, lowerable form of a kiln op -----*- C++ -*-===//
//
// What semantic analysis hands to the rest of the compiler: a GEMM-shaped
// contraction with its operands classified (A, B, factored-out scales,
// epilogue operands), the fused epilogue as a small expression tree, and the
// op's tuning space. Everything here has already been checked; consumers
// (MLIR generation, the space enumerator, the CLI) never re-validate user
// input, they only assert.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_OPMODEL_H
#define KILN_FRONTEND_OPMODEL_H

#include "kiln/Frontend/DType.h"
#include "kiln/Frontend/SourceLoc.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kiln {

/// One dimension of a parameter's symbolic shape: `Sym / Divisor`, or a
/// constant when Sym is empty (e.g. `K / 128`, `M`, `4`).
struct ShapeDim {
  std::string Sym;
  int64_t Divisor = 1;
  int64_t Constant = 0; ///< Used only when Sym is empty.
};

/// A declared tensor parameter (`in A : f8e4m3[M, K]`). A rank-0 tensor
/// (`in s : f32`) is a scalar held in device memory.
struct TensorParam {
  std::string Name;
  DType Type = DType::F32;
  bool IsOutput = false;
  std::vector<ShapeDim> Shape;
  SourceLoc Loc;
};

/// The GEMM index an epilogue operand is addressed by.
enum class EpiIndex { M, N };

/// The fused epilogue: a tree over the fp32 accumulator (the reduction),
/// constants and elementwise loads of other parameters.
struct EpiExpr {
  enum class Kind {
    Acc,   ///< The fp32 value of sum(k) A*B (after nothing else).
    Const, ///< A floating-point literal.
    Load,  ///< Param[Indices...]; rank-0 params have no indices.
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    Relu,
    Gelu, ///< tanh approximation.
    Silu,
    Cast ///< Round to CastType and back to fp32 (explicit intermediate cast).
  };
  Kind K = Kind::Acc;
  double Value = 0;              ///< Const.
  int Param = -1;                ///< Load: index into OpModel::Params.
  std::vector<EpiIndex> Indices; ///< Load: one per dim of the param.
  DType CastType = DType::F32;   ///< Cast.
  std::vector<std::unique_ptr<EpiExpr>> Operands;
  SourceLoc Loc;
};

/// A value in a tuning domain: an integer or an identifier (enum-like).
using TuneValue = std::variant<int64_t, std::string>;

/// An expression in a `require` constraint, over tuning parameters.
struct ConstraintExpr {
  enum class Kind {
    Int,
    Ident, ///< A tuning parameter, or an identifier value such as `n`.
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Not,
    Neg
  };
  Kind K = Kind::Int;
  int64_t Int = 0;
  std::string Name;
  std::vector<std::unique_ptr<ConstraintExpr>> Operands;
  SourceLoc Loc;
};

struct TuneParam {
  std::string Name;
  std::vector<TuneValue> Domain; ///< A fixed value is a one-element domain.
  SourceLoc Loc;
};

struct Constraint {
  std::unique_ptr<ConstraintExpr> Expr;
  std::string Text; ///< The constraint as written, for messages.
  SourceLoc Loc;
};

/// The declared tuning space: parameters in declaration order, constraints.
/// Parameters that an op does not declare take kiln's defaults (see
/// kiln/Target/KernelConfig.h).
struct TuneSpace {
  std::vector<TuneParam> Params;
  std::vector<Constraint> Requires;
  SourceLoc Loc;
};

/// A checked GEMM op: D[m, n] = epilogue(sum(k) A[m, k] * B[n, k]).
struct OpModel {
  std::string Name;
  SourceLoc Loc;
  std::vector<TensorParam> Params; ///< In declaration order (= kernel ABI).
  int A = -1, B = -1, D = -1;      ///< Indices into Params.
  /// Symbol names of the problem sizes (as the user wrote them in A and D).
  std::string MSym, NSym, KSym;
  /// The epilogue tree; k-independent factors of the reduction (per-tensor,
  /// per-row, per-column scales) have been moved here by sema.
  std::unique_ptr<EpiExpr> Epilogue;
  TuneSpace Space;
};

} // namespace kiln

#endif // KILN_FRONTEND_OPMODEL_H
