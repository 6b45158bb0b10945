//===- AttentionVarlenTest.cpp - The varlen form of attention ------------===//
//
// Sema's model of the varlen form (examples/attention_varlen.kiln), and the
// interpreter against the float64 reference on sequences with bad offsets
// (an empty sequence, a decreasing end, one past S): each sequence is its
// own problem, and rows of no sequence keep their bytes.
//
//===----------------------------------------------------------------------===//
#include "AttentionTestUtil.h"
#include "ExampleFiles.h"
#include "SemaTestUtil.h"

#include "kiln/Interpreter/Attention.h"

#include <catch2/catch.hpp>

using namespace kiln;
using attntest::params;
using attntest::tiling;

namespace {
ProblemSize varlenSize(int64_t B, int64_t H, int64_t Hkv, int64_t S,
                       int64_t T) {
  return {{"B", B}, {"H", H}, {"HKV", Hkv}, {"S", S}, {"T", T}};
}
} // namespace

TEST_CASE("varlen attention: the example's model", "[attention][varlen]") {
  OpModel Op = test::exampleOpNamed("attention_varlen.kiln", "attn_varlen");
  REQUIRE(Op.Attention);
  const AttentionSpec &A = *Op.Attention;
  REQUIRE(A.varlen());
  CHECK(Op.Params[size_t(A.SeqQ)].Name == "cu_q");
  CHECK(Op.Params[size_t(A.SeqK)].Name == "cu_k");
  CHECK((A.BSym == "B" && A.SSym == "S" && A.TSym == "T" && A.HSym == "H" &&
         A.HkvSym == "HKV"));
  CHECK(Op.Params[size_t(A.Lse)].Shape.size() == 2);
  CHECK(A.Masking == AttentionSpec::Mask::Causal);
}

TEST_CASE("varlen attention: bad offsets are clipped, padding is kept",
          "[attention][varlen]") {
  OpModel Op = test::exampleOpNamed("attention_varlen.kiln", "attn_varlen");
  const AttentionSpec &A = *Op.Attention;
  const int64_t S = 150, T = 170, H = 4;
  std::vector<HostTensor> P = params(Op, varlenSize(5, H, 2, S, T));
  // Queries: [0, 40), empty, [40, 70) (20 < 40 ends at the running max 40,
  // then 70), [70, 150) (400 clipped to S); keys likewise.
  const int64_t Ends[5] = {40, 40, 20, 70, 400};
  const int64_t KeyEnds[5] = {50, -3, 50, 120, 160};
  for (int64_t b = 0; b < 5; ++b) {
    P[size_t(A.SeqQ)].set(b, double(Ends[b]));
    P[size_t(A.SeqK)].set(b, double(KeyEnds[b]));
  }
  for (int I : {Op.D, A.Lse})
    P[size_t(I)].Bytes.assign(P[size_t(I)].Bytes.size(), 0xFF);
  // Sequence 2 has no query (40..40 after the running max); sequence 3
  // is [40, 70) with keys [50, 120).
  interpretAttention(Op, tiling(64, 64), P);
  const AttentionReference Ref = referenceAttention(Op, P);
  const AttentionComparison C = checkAttention(Op, P, Ref);
  CHECK(C.Pass);
  CHECK(C.O.Failures == 0);
  CHECK(C.PaddingRows == 0); // the last sequence reaches S
  // Queries [0, 40) see 50 keys, [40, 70) 70, [70, 150) 40 (from 120 to
  // 160): every row sees a key under the causal mask but the first
  // queries of the last sequence (80 queries, 40 keys: 40 rows see none).
  CHECK(C.EmptyRows == 40 * H);

  SECTION("rows past the last sequence keep their contents") {
    P[size_t(A.SeqQ)].set(4, 100.0);
    for (int I : {Op.D, A.Lse})
      P[size_t(I)].Bytes.assign(P[size_t(I)].Bytes.size(), 0xFF);
    interpretAttention(Op, tiling(64, 64), P);
    const AttentionComparison Kept =
        checkAttention(Op, P, referenceAttention(Op, P));
    CHECK(Kept.Pass);
    CHECK(Kept.PaddingRows == (S - 100) * H);
    CHECK(Kept.PaddingWritten == 0);
    // A kernel that wrote a padding row is caught.
    P[size_t(Op.D)].set((120 * H + 1) * 128 + 3, 0.0);
    const AttentionComparison Written =
        checkAttention(Op, P, referenceAttention(Op, P));
    CHECK(!Written.Pass);
    CHECK(Written.PaddingWritten == 1);
  }
}
