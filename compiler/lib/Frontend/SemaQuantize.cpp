//===- SemaQuantize.cpp - D[m, n] = quantize(x, ds) -----------------------===//
//
// The quantized output: `quantize(x, ds)` around the whole right-hand side
// makes D (f8e4m3 or f8e5m2) hold x divided by a per-row block scale, and
// writes the scales to ds, a second output of shape [M, N / B] (f32, or
// ue8m0 for power-of-two scales). Checked here for the GEMM family and for
// a permutation that quantizes the rows it moves; OpModel::Quant records it.
//
//===----------------------------------------------------------------------===//
#include "SemaInternal.h"

namespace kiln {

const Expr *stripQuantize(OpSema &S, const Expr &R, bool AllowAmax) {
  if (R.K != Expr::Kind::Call || R.Name != "quantize")
    return &R;
  OpModel &M = S.Model;
  const TensorParam &D = M.Params[M.D];
  if (R.Args.size() != 2 && R.Args.size() != 3) {
    S.error(R.Range, "'quantize' takes the value, the scale tensor it "
                     "writes and optionally an amax scalar, like "
                     "'quantize(sum(k) A[m, k] * B[n, k], ds)' or "
                     "'quantize(..., ds, amax)'; got " +
                         std::to_string(R.Args.size()) + " argument" +
                         (R.Args.size() == 1 ? "" : "s"));
    return nullptr;
  }
  bool Ok = true;
  if (D.Type != DType::F8E4M3 && D.Type != DType::F8E5M2) {
    S.error(R.NameRange, "quantize writes an FP8 output, but '" + D.Name +
                             "' is " + std::string(dtypeName(D.Type)));
    S.note(S.ParamDecls[M.D]->TypeRange,
           "declare '" + D.Name + "' f8e4m3 or f8e5m2 here");
    Ok = false;
  }
  const Expr &Scale = *R.Args[1];
  if (Scale.K != Expr::Kind::Name) {
    S.error(Scale.Range, "quantize's second argument is the name of the "
                         "scale tensor it writes, like 'ds' (declared 'out ds "
                         ": f32[M, N / 128]'), not an expression");
    return nullptr;
  }
  int P = S.findParam(Scale.Name);
  if (P < 0) {
    S.unknownTensor(Scale);
    return nullptr;
  }
  const TensorParam &T = M.Params[P];
  if (!T.IsOutput) {
    S.error(Scale.NameRange, "quantize writes its scales to '" + T.Name +
                                 "', which is an input; declare it 'out " +
                                 T.Name + " : f32[M, N / 128]'");
    return nullptr;
  }
  if (T.Type != DType::F32 && T.Type != DType::UE8M0) {
    S.error(S.ParamDecls[P]->TypeRange,
            "quantize's scale tensor '" + T.Name + "' is " +
                std::string(dtypeName(T.Type)) +
                "; scales are f32, or ue8m0 for powers of two");
    Ok = false;
  }
  int AmaxParam = -1;
  if (R.Args.size() == 3 && !AllowAmax) {
    S.error(R.Args[2]->Range, "this op's quantize takes no amax scalar: "
                              "'quantize(..., ds)'");
    return nullptr;
  }
  if (R.Args.size() == 3) {
    const Expr &Amax = *R.Args[2];
    AmaxParam = Amax.K == Expr::Kind::Name ? S.findParam(Amax.Name) : -1;
    if (Amax.K != Expr::Kind::Name) {
      S.error(Amax.Range, "quantize's third argument is the name of the "
                          "amax scalar it writes, like 'amax' (declared 'out "
                          "amax : f32'), not an expression");
      return nullptr;
    }
    if (AmaxParam < 0) {
      S.unknownTensor(Amax);
      return nullptr;
    }
    const TensorParam &A = M.Params[AmaxParam];
    if (!A.IsOutput || A.Type != DType::F32 || !A.Shape.empty() ||
        AmaxParam == P) {
      S.error(S.ParamDecls[AmaxParam]->Range,
              "quantize's amax '" + A.Name +
                  "' must be its own f32 scalar output: 'out " + A.Name +
                  " : f32'");
      return nullptr;
    }
  }
  if (!Ok)
    return nullptr;
  OutputQuant Q;
  Q.Scale = P;
  Q.Amax = AmaxParam;
  M.Quant = Q;
  return R.Args[0].get();
}

bool checkQuantScale(OpSema &S) {
  OpModel &M = S.Model;
  if (!M.Quant)
    return true;
  const int P = M.Quant->Scale;
  const TensorParam &T = M.Params[P];
  const TensorParam &D = M.Params[M.D];
  const size_t Rank = D.Shape.size(), Cols = Rank - 1; // D's N dimension
  bool Shaped = T.Shape.size() == Rank &&
                T.Shape[Cols].Sym == D.Shape[Cols].Sym &&
                T.Shape[Cols].Divisor > 1;
  for (size_t I = 0; Shaped && I < Cols; ++I)
    Shaped = T.Shape[I].Sym == D.Shape[I].Sym && T.Shape[I].Divisor == 1;
  if (!Shaped) {
    std::string Want;
    for (size_t I = 0; I < Cols; ++I)
      Want += D.Shape[I].Sym + ", ";
    S.error(S.ParamDecls[P]->Range,
            "quantize's scale tensor '" + T.Name + "' must be [" + Want +
                D.Shape[Cols].Sym + " / B]: one scale per row of '" + D.Name +
                "' and B of its "
                "columns (DeepSeek-V3's per-token scales: B = 128)");
    return false;
  }
  const int64_t B = T.Shape[Cols].Divisor;
  if (B % 8 != 0) {
    S.error(S.ParamDecls[P]->Shape[Cols].Range,
            "quantize's block of " + std::to_string(B) +
                " columns must be a multiple of 8 (the MMA fragments' "
                "column groups)");
    return false;
  }
  M.Quant->Block = B;
  return true;
}

} // namespace kiln
