//===- AST.h - Syntax tree of a .kiln file ----------------------*- C++ -*-===//
//
// What the parser builds: ops, their parameter declarations, the computation
// statement, and the tune block, with source ranges for diagnostics. The AST
// is purely syntactic; sema (Sema.h) checks it and produces kiln::OpModel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_AST_H
#define KILN_FRONTEND_AST_H

#include "kiln/Frontend/SourceRange.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace kiln {

/// An expression: the right-hand side of the computation, index expressions
/// and `require` constraints share this node (sema decides what is allowed
/// where).
struct Expr {
  enum class Kind {
    Int,       ///< IntValue.
    Float,     ///< FloatValue.
    Name,      ///< Name: a tensor, index, knob or identifier value.
    Subscript, ///< Name[Args...]: an element of a tensor.
    Call,      ///< Name(Args...): a function or a dtype cast.
    Sum,       ///< sum(Name) Args[0].
    Unary,     ///< Op Args[0] (Neg, Not).
    Binary     ///< Args[0] Op Args[1].
  };
  enum class OpKind {
    None,
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
    Neg,
    Not
  };

  Kind K = Kind::Int;
  OpKind Op = OpKind::None;
  int64_t IntValue = 0;
  double FloatValue = 0;
  std::string Name;
  SourceRange NameRange; ///< Of Name (Name, Subscript, Call, Sum).
  std::vector<std::unique_ptr<Expr>> Args;
  /// The primary position: the operator of a Unary/Binary, else the start.
  SourceLoc Loc;
  SourceRange Range; ///< The whole expression.
  /// Nodes on the longest path down to a leaf (a leaf is 1). The parser
  /// keeps it at most MaxExprHeight, so every recursive walk of a tree
  /// (sema, fingerprints, MLIR generation, EmitC, the interpreter, the
  /// destructor) is bounded.
  unsigned Height = 1;
};
using ExprPtr = std::unique_ptr<Expr>;

/// The spelling of a binary or unary operator ("+", "<=", "!").
const char *opSpelling(Expr::OpKind Op);
/// E printed back as source text, with only the parentheses precedence needs.
std::string exprToString(const Expr &E);

/// One dimension of a declared shape: `Sym`, `Sym / Divisor` or `Constant`.
struct ShapeDimDecl {
  std::string Sym; ///< Empty for a constant dimension.
  int64_t Divisor = 1;
  int64_t Constant = 0;
  SourceRange Range;
};

/// `in A : f8e4m3[M, K]` / `out D : bf16[M, N]`.
struct ParamDecl {
  bool IsOutput = false;
  std::string Name;
  SourceRange NameRange;
  std::string TypeName; ///< As written; sema resolves it.
  SourceRange TypeRange;
  std::vector<ShapeDimDecl> Shape; ///< Empty = rank 0.
  /// `grouped G` after the shape (an index tensor whose runs of equal ids
  /// start at multiples of G); 0 when absent.
  int64_t GroupAlign = 0;
  /// `offsets` after the shape (an index tensor of group boundaries: the
  /// end row of each expert, a prefix sum).
  bool GroupOffsets = false;
  /// `masked` after the shape (the masked layout's count of valid rows of
  /// each expert).
  bool GroupMasked = false;
  /// `masked expect T`: the size symbol of the expected valid rows per
  /// expert (a host hint for choosing the configuration); "" when absent.
  std::string GroupExpect;
  SourceRange ExpectRange; ///< Of T.
  /// `... topk TK` after any group form: the size symbol of the experts
  /// each token is routed to (a hint, like expect); "" when absent.
  std::string GroupTopK;
  SourceRange TopKRange;  ///< Of TK.
  SourceRange GroupRange; ///< Of `grouped G`, `offsets` or `masked`.
  SourceRange Range;      ///< The whole declaration.
};

/// `D[m, n] = expr`.
struct ComputeStmt {
  ExprPtr Lhs; ///< A Subscript (or a Name for a rank-0 target).
  ExprPtr Rhs;
  SourceLoc AssignLoc;
  SourceRange Range;
};

/// `mask causal`, `mask window L` or `mask window L, R`: which keys an
/// attention op's query sees (OpFamily::Attention; AttentionSpec).
struct MaskDecl {
  enum class Kind { Causal, Window };
  Kind K = Kind::Causal;
  /// A window's keys before and after the query's diagonal; `mask window
  /// L` is L and 0 (causal, the last L + 1 keys). -1: not written.
  int64_t Left = -1, Right = -1;
  SourceRange KindRange; ///< `causal` or `window`.
  SourceRange Range;     ///< The whole statement.
};

/// `varlen cu_q, cu_k`: an attention op's batch of variable-length
/// sequences, packed along the query and key rows; each names an i32 input
/// [B] of the sequences' end rows (cumulative offsets, as
/// FlashAttention's cu_seqlens[1:]).
struct VarlenDecl {
  std::string Queries, Keys;
  SourceRange QueriesRange, KeysRange;
  SourceRange Range; ///< The whole statement.
};

/// A value of a tuning domain as written.
struct TuneValueDecl {
  std::variant<int64_t, std::string> Value;
  SourceRange Range;
};

/// `block_m in [64, 128]` or `block_k = 128`.
struct KnobDecl {
  std::string Name;
  SourceRange NameRange;
  bool IsFixed = false; ///< Written `name = v`.
  std::vector<TuneValueDecl> Values;
  SourceRange ValuesRange; ///< The list (brackets included) or the value.
};

/// `require expr`.
struct RequireDecl {
  ExprPtr Cond;
  std::string Text; ///< The expression as written (whitespace collapsed).
  SourceRange Range;
};

/// `tune { ... }`.
struct TuneBlock {
  SourceRange KeywordRange;
  std::vector<KnobDecl> Knobs;
  std::vector<RequireDecl> Requires;
};

/// `op name { ... }`.
struct OpDecl {
  std::string Name;
  SourceRange NameRange;
  SourceRange KeywordRange;
  std::vector<ParamDecl> Params;
  std::vector<ComputeStmt> Computes; ///< Sema requires exactly one.
  std::vector<TuneBlock> Tunes;      ///< Sema allows at most one.
  std::vector<MaskDecl> Masks;       ///< Sema allows at most one.
  std::vector<VarlenDecl> Varlens;   ///< Sema allows at most one.
  /// The parser reported an error inside this op; sema skips it so that one
  /// mistake does not cascade into follow-on errors.
  bool HasSyntaxErrors = false;
};

/// `layer name { op op ... }`: ops run in order, their tensors joined by
/// name (`layer` is a keyword only at the start of a line at the top level).
struct LayerDecl {
  std::string Name;
  SourceRange NameRange;
  struct Stage {
    std::string Op;
    SourceRange Range;
  };
  std::vector<Stage> Stages;
  bool HasSyntaxErrors = false;
};

/// A parsed file.
struct Module {
  std::string FileName;
  std::vector<OpDecl> Ops;
  std::vector<LayerDecl> Layers;
};

/// Prints M as an indented tree (`kiln compile --emit=ast`).
void printAST(const Module &M, std::ostream &OS);

} // namespace kiln

#endif // KILN_FRONTEND_AST_H
