//===- ComputeChecker.h - Checking the computation statement ----*- C++ -*-===//
//
// Checks `D[m, n] = expr` against the one pattern kiln lowers today:
//
//   D[m, n] = epilogue(sum(k) A[m, k] * B[n, k] * scales...)
//
// or its gated form, two reductions over the same A (OpModel::Up):
//
//   D[m, n] = epilogue(sum(k) A[m, k] * G[n, k] * ..., sum(k) A[m, k] * U[n, k]
//   * ...)
//
// The factors of the reduction's body are classified: the two tensors indexed
// by plain `k` are A (row index m) and B (row index n); factors that do not
// depend on k are scales and move to the epilogue (sum(k) s*x = s*sum(k) x);
// factors indexed by `k / c` are block scales (OpModel::KScales), applied to
// each K block's partial sum.
// A k-independent divisor (`sum(k) A[m, k] * B[n, k] / s`) moves too.
// Every index gets an extent from the shapes it addresses, and all uses must
// agree. Everything outside the reduction becomes the EpiExpr tree.
//
// The work is split by job: SemaContraction.cpp (the left-hand side and the
// reduction), SemaEpilogue.cpp (the EpiExpr tree), SemaIndices.cpp (index
// forms, ranks and extents).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_FRONTEND_COMPUTECHECKER_H
#define KILN_LIB_FRONTEND_COMPUTECHECKER_H

#include "SemaInternal.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::sema {

/// An index expression of the form `Var` or `Var / Div`, or a grouped
/// GEMM's expert of row m, `eid[m]` (Group: the index tensor; Var is then
/// "eid[m]", so its extent, E, is bound like an index's).
struct IndexUse {
  std::string Var;
  int64_t Div = 1;
  SourceRange Range;
  int Group = -1;
  bool isPlain(const std::string &V) const { return Var == V && Div == 1; }
  bool isGroup() const { return Group >= 0; }
};

/// A tensor element inside the reduction that depends on k.
struct KFactor {
  const Expr *E = nullptr;
  int Param = -1;
  std::vector<IndexUse> Uses;
  /// 1 when the masked layout's leading `e` of `X[e, m, ...]` was folded
  /// into the row (Uses then start at m, X's dimension 1); else 0.
  unsigned DimOffset = 0;
  bool uses(const std::string &V) const {
    for (const IndexUse &U : Uses)
      if (U.Var == V)
        return true;
    return false;
  }
  bool hasPlain(const std::string &V) const {
    for (const IndexUse &U : Uses)
      if (U.isPlain(V))
        return true;
    return false;
  }
};

/// Where an index got its extent, for the note of a later mismatch.
struct Binding {
  ShapeDim Extent; ///< Sym (Divisor 1) or a constant.
  std::string Where;
  SourceRange Range;
};

/// Checks one computation statement; see the file comment.
class ComputeChecker {
public:
  explicit ComputeChecker(OpSema &S) : S(S), M(S.Model) {}
  /// Fills S.Model.A/B/Epilogue and the problem-size symbols, or reports.
  void run(const ComputeStmt &Stmt);

private:
  // SemaContraction.cpp: the left-hand side and the reduction.
  bool checkLhs(const Expr &L);
  const Expr *stripOutputCast(const Expr &R);
  bool checkSum(const Expr &Sum);
  bool checkUpSum(const Expr &Sum);
  bool checkDistinctSizes();
  bool resolveNames(const Expr &E);
  bool checkKFactor(const Expr &F, KFactor &Out);
  bool checkBlockScale(const KFactor &F, KScale &Out);
  bool assignBlockScales(
      const std::vector<std::pair<KScale, const KFactor *>> &Scales);
  bool checkOperandLayout(const KFactor &F, const std::string &Row,
                          const char *Role, const char *Advice);
  bool parseGroupIndex(const Expr &E, IndexUse &U);
  bool checkGrouping();
  void checkOperandTypes(const KFactor &A, const KFactor &B);

  // SemaEpilogue.cpp: everything outside the reduction.
  std::unique_ptr<EpiExpr> convert(const Expr &E);
  std::unique_ptr<EpiExpr> convertLoad(const Expr &E);
  std::unique_ptr<EpiExpr> convertCall(const Expr &E);

  // SemaIndices.cpp: index forms, ranks and extents.
  bool checkRank(const Expr &E, int P);
  bool parseIndex(const Expr &E, IndexUse &U);
  bool foldMaskedRow(std::vector<IndexUse> &Uses, int P, unsigned &Offset);
  bool bindIndex(const IndexUse &U, int P, unsigned Dim, bool NeedSymbol);
  void unknownIndex(const std::string &Name, SourceRange Range,
                    const std::vector<std::string> &Scope);
  std::string roleName(const char *Role, int P) const;

  OpSema &S;
  OpModel &M;
  std::string MIdx, NIdx, KIdx;
  /// The masked layout's expert index, D[e, m, n] (GroupIndex::Masked); ""
  /// otherwise.
  std::string EIdx;
  std::map<std::string, Binding> Extents;
  /// k-independent factors of the reduction, applied to the accumulator in
  /// source order (Div for a divisor).
  struct MovedScale {
    std::unique_ptr<EpiExpr> E;
    bool Divide = false;
  };
  std::vector<MovedScale> MovedScales;
  const Expr *SumExpr = nullptr;
  bool SumOk = false;
  /// A gated op's second reduction and its moved scales (OpModel::Up).
  const Expr *UpSumExpr = nullptr;
  std::vector<MovedScale> UpMovedScales;
};

} // namespace kiln::sema

#endif // KILN_LIB_FRONTEND_COMPUTECHECKER_H
