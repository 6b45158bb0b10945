//===- SemaInternal.h - State shared by the sema files ----------*- C++ -*-===//
//
// OpSema holds what semantic analysis knows about one op while it checks it:
// the model under construction, the parameter table, and an error flag of
// its own (the engine's count stops at the error limit). Sema.cpp checks
// declarations, SemaCompute.cpp the computation, SemaTune.cpp the tune block.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_FRONTEND_SEMAINTERNAL_H
#define KILN_LIB_FRONTEND_SEMAINTERNAL_H

#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/OpModel.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln {

struct OpSema {
  OpSema(const OpDecl &Decl, DiagnosticEngine &Diags)
      : Decl(Decl), Diags(Diags) {}

  const OpDecl &Decl;
  DiagnosticEngine &Diags;
  OpModel Model;
  /// Parallel to Model.Params.
  std::vector<const ParamDecl *> ParamDecls;
  /// False for a parameter whose declaration had an error: uses of it are
  /// not checked further, so one mistake is reported once.
  std::vector<bool> ParamValid;
  std::map<std::string, int> ParamByName;
  /// The tensor named as quantize's scale in `D[m, n] = quantize(x, ds)`
  /// (empty otherwise): a second output, which may be ue8m0.
  std::string QuantScaleName;
  /// Its optional third argument, the amax scalar (a third output).
  std::string QuantAmaxName;
  /// The outputs a statement names besides the one it assigns, all i32
  /// index tensors: a router's ids (`w[t, j] = topk(s, ids)`), a
  /// permutation's eid, pos and cnt (`a[m, h] = permute(x[t, h], ids, eid,
  /// pos, cnt)`).
  std::set<std::string> IndexOutputs;
  /// An attention op's log-sum-exp, softmax's third argument (`softmax(t,
  /// x, lse)`), a second output; empty otherwise.
  std::string LseName;
  bool Failed = false;

  void error(SourceLoc Loc, std::string Msg, SourceRange Range = {}) {
    Failed = true;
    Diags.error(Loc, std::move(Msg), Range);
  }
  void error(SourceRange Range, std::string Msg) {
    error(Range.Begin, std::move(Msg), Range);
  }
  void note(SourceRange Range, std::string Msg) {
    Diags.note(Range, std::move(Msg));
  }

  /// Index into Model.Params, or -1.
  int findParam(const std::string &Name) const {
    auto It = ParamByName.find(Name);
    return It == ParamByName.end() ? -1 : It->second;
  }
  std::vector<std::string> paramNames() const;
  /// "A : f8e4m3[M, K]" as declared.
  std::string describeParam(int P) const;
  /// Reports "unknown tensor 'X'" (with a suggestion) for a Name/Subscript.
  void unknownTensor(const Expr &E);
};

/// "M", "K / 128" or "4".
std::string shapeDimToString(const ShapeDim &D);
/// "[M, K]", or "" for rank 0.
std::string shapeToString(const std::vector<ShapeDim> &Shape);

/// Checks the computation statement and fills Model.A/B/Epilogue and the
/// problem-size symbols. Requires Model.D to be set.
void checkComputation(OpSema &S, const ComputeStmt &Stmt);

/// Checks a router's top-k statement (OpFamily::Route) and fills Model.A,
/// Model.Route and the size roles. Requires Model.D to be set.
void checkRouteComputation(OpSema &S, const ComputeStmt &Stmt);
/// Checks a permutation's statement (OpFamily::Permute) and fills Model.A,
/// Model.Permute and the size roles. Requires Model.D to be set.
void checkPermuteComputation(OpSema &S, const ComputeStmt &Stmt);
/// Checks a top-k weighted combine's statement (OpFamily::Combine) and
/// fills Model.A, Model.Combine and the size roles. Requires Model.D.
void checkCombineComputation(OpSema &S, const ComputeStmt &Stmt);
/// Checks softmax attention's statement and the op's mask (OpFamily::
/// Attention) and fills Model.A, B, Attention and the size roles. Requires
/// Model.D.
void checkAttentionComputation(OpSema &S, const ComputeStmt &Stmt);
/// Whether E holds a sum that gathers rows by an index tensor read at its
/// index (`sum(j) ... y[pos[t, j], h]`): a combine's statement.
bool isGatherSum(const Expr &E);
/// Reports every output of the op other than Model.D and Named (the index
/// tensors a router or permutation writes): they would never be written.
void checkNamedOutputs(OpSema &S, const std::vector<int> &Named,
                       const std::string &Call);
/// quantize(x, ds[, amax]) around the whole right-hand side R
/// (SemaQuantize.cpp): checks its form, records Model.Quant and returns x
/// (R itself without it; nullptr after an error). AllowAmax: whether the
/// family takes the amax scalar.
const Expr *stripQuantize(OpSema &S, const Expr &R, bool AllowAmax = true);
/// After stripQuantize: ds must be [M, N / B] over D's own size names (the
/// masked layout's [E, M, N / B], one block of rows per expert as D), B a
/// multiple of 8; records Model.Quant->Block.
bool checkQuantScale(OpSema &S);

/// Checks the tune block's declarations and fills Model.Space.
void checkTuneBlock(OpSema &S);

/// Once the whole model is valid: the space must be non-empty after the
/// constraints and some target must run one of its points.
void checkTuneSpace(OpSema &S);

} // namespace kiln

#endif // KILN_LIB_FRONTEND_SEMAINTERNAL_H
