//===- RouteTest.cpp - The route family: a router's top-k -----------------===//
//
// What sema records for examples/moe_route.kiln's two routers, the
// interpreter's tie rule and group-limited choice on logits whose answer is
// known, checkRoute against outputs broken on purpose, the size rules, the
// launch plan's ABI, and a router's bundle round trip.
//
//===----------------------------------------------------------------------===//
#include <catch2/catch.hpp>

#include "ExampleFiles.h"

#include "kiln/Interpreter/Route.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/Route/RouteLaunchPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <cmath>
#include <limits>

using namespace kiln;

namespace {

OpModel router(const std::string &Name) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops =
      loadOps("moe_route.kiln", test::readExample("moe_route.kiln"), Diags);
  for (OpModel &Op : Ops)
    if (Op.Name == Name)
      return std::move(Op);
  FAIL("no op " << Name);
  return OpModel();
}

std::vector<HostTensor> inputs(const OpModel &Op, int64_t T, int64_t E,
                               int64_t K, uint64_t Seed = 1) {
  std::vector<HostTensor> Params;
  std::string Error;
  REQUIRE(makeParams(Op, ProblemSize{{"T", T}, {"E", E}, {"K", K}}, Seed,
                     Params, Error));
  return Params;
}

int32_t id(const OpModel &Op, const std::vector<HostTensor> &P, int64_t I) {
  return int32_t(P[size_t(Op.Route->Ids)].get(I));
}

} // namespace

TEST_CASE("sema records a router's form and its sizes", "[route]") {
  OpModel S = router("moe_route_softmax");
  REQUIRE(S.Family == OpFamily::Route);
  REQUIRE(S.Route);
  CHECK(S.Route->Fn == RouteSpec::Score::Softmax);
  CHECK(S.Route->Bias == -1);
  CHECK(S.Route->Groups == 0);
  CHECK(S.Route->Normalize);
  CHECK(S.Route->Scale == 1.0);
  CHECK(S.Params[size_t(S.A)].Name == "L");
  CHECK(S.Params[size_t(S.D)].Name == "w");
  CHECK(S.Params[size_t(S.Route->Ids)].Name == "ids");
  CHECK((S.MSym == "T" && S.NSym == "K" && S.KSym == "E"));
  CHECK(S.Epilogue == nullptr);

  OpModel D = router("moe_route_deepseek");
  CHECK(D.Route->Fn == RouteSpec::Score::Sigmoid);
  CHECK(D.Params[size_t(D.Route->Bias)].Name == "bias");
  CHECK((D.Route->Groups == 8 && D.Route->KeepGroups == 4));
  CHECK(D.Route->Scale == 2.5);
  // The space: block_m only, every target, the default closest to 8.
  CHECK(validConfigs(D, Arch::SM80).size() == 4);
  CHECK(defaultConfig(D, Arch::SM90a)->BlockM == 8);
  CHECK(opConfigString(D, *defaultConfig(D, Arch::SM90a)) == "block_m=8");
}

TEST_CASE("the interpreter breaks ties to the lower expert", "[route]") {
  OpModel Op = router("moe_route_softmax");
  std::vector<HostTensor> P = inputs(Op, 2, 64, 5);
  HostTensor &L = P[size_t(Op.A)];
  for (int64_t E = 0; E < 64; ++E) {
    L.set(E, 0.5);                    // token 0: all equal
    L.set(64 + E, E % 2 ? 1.0 : 0.0); // token 1: the odd experts tie
  }
  interpretRoute(Op, P);
  for (int64_t J = 0; J < 5; ++J) {
    CHECK(id(Op, P, J) == J);
    CHECK(id(Op, P, 5 + J) == 2 * J + 1);
    CHECK(P[size_t(Op.D)].get(J) == Approx(0.2).epsilon(1e-6));
  }
  CHECK(checkRoute(Op, P).Pass);
}

TEST_CASE("group-limited top-k chooses within the kept groups", "[route]") {
  OpModel Op = router("moe_route_deepseek");
  // 16 experts in 8 groups of 2, 4 kept, top-3. Expert 15 has the largest
  // key, but its group (7: experts 14, 15) sums lowest; groups 0..3 rank
  // highest, so the choice is among experts 0..7 only.
  std::vector<HostTensor> P = inputs(Op, 1, 16, 3);
  HostTensor &L = P[size_t(Op.A)];
  const double Logit[16] = {1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3,
                            -1,  -1,  -1,  -1,  -1,  -1,  -6,  3.0};
  for (int64_t E = 0; E < 16; ++E) {
    L.set(E, Logit[E]);
    P[size_t(Op.Route->Bias)].set(E, 0);
  }
  interpretRoute(Op, P);
  CHECK(id(Op, P, 0) == 0);
  CHECK(id(Op, P, 1) == 1);
  CHECK(id(Op, P, 2) == 2);
  const double S0 = 1 / (1 + std::exp(-1.0)), S1 = 1 / (1 + std::exp(-0.9)),
               S2 = 1 / (1 + std::exp(-0.8));
  CHECK(P[size_t(Op.D)].get(0) ==
        Approx(2.5 * S0 / (S0 + S1 + S2)).epsilon(1e-6));
  CHECK(checkRoute(Op, P).Pass);
  // Choosing expert 15 (the global top) breaks the group limit.
  P[size_t(Op.Route->Ids)].set(2, 15);
  RouteCheck C = checkRoute(Op, P);
  CHECK_FALSE(C.Pass);
  CHECK(C.BadChoices == 1);
  CHECK(C.FirstFailure.find("group 7") != std::string::npos);
}

TEST_CASE("checkRoute catches each kind of wrong output", "[route]") {
  OpModel Op = router("moe_route_deepseek");
  const int64_t T = 50, E = 64, K = 8;
  std::vector<HostTensor> Good = inputs(Op, T, E, K, 3);
  interpretRoute(Op, Good);
  REQUIRE(checkRoute(Op, Good).Pass);
  HostTensor &W0 = Good[size_t(Op.D)];
  const size_t Ids = size_t(Op.Route->Ids);

  auto Broken = [&](auto Edit) {
    std::vector<HostTensor> P = Good;
    Edit(P);
    return checkRoute(Op, P);
  };
  SECTION("slots out of order") {
    RouteCheck C = Broken([&](std::vector<HostTensor> &P) {
      int32_t A = int32_t(P[Ids].get(0)), B = int32_t(P[Ids].get(1));
      P[Ids].set(0, B);
      P[Ids].set(1, A);
    });
    CHECK(C.BadChoices == 1);
    CHECK(C.FirstFailure.find("larger key than slot 0") != std::string::npos);
  }
  SECTION("an expert twice, or none") {
    CHECK(Broken([&](std::vector<HostTensor> &P) {
            P[Ids].set(K + 1, P[Ids].get(K));
          }).FirstFailure.find("chosen twice") != std::string::npos);
    CHECK(Broken([&](std::vector<HostTensor> &P) {
            P[Ids].set(3, -1);
          }).FirstFailure.find("not an expert") != std::string::npos);
    CHECK(Broken([&](std::vector<HostTensor> &P) {
            P[Ids].set(3, E);
          }).BadChoices == 1);
  }
  SECTION("a better expert left out") {
    // Token 0's last slot (the smallest chosen key, expert X) swapped for
    // an unchosen expert Y of the same group (kept, so considered): X, left
    // out, had the larger key.
    const int64_t Last = K - 1;
    const int32_t X = int32_t(Good[Ids].get(Last));
    int32_t Y = -1;
    for (int32_t E2 = X / 8 * 8; E2 < X / 8 * 8 + 8 && Y < 0; ++E2) {
      bool Chosen = false;
      for (int64_t J = 0; J < K; ++J)
        Chosen = Chosen || int32_t(Good[Ids].get(J)) == E2;
      if (!Chosen)
        Y = E2;
    }
    REQUIRE(Y >= 0);
    RouteCheck C =
        Broken([&](std::vector<HostTensor> &P) { P[Ids].set(Last, Y); });
    CHECK(C.BadChoices == 1);
    // Some expert with a larger key than Y's (X, or one between) is named.
    CHECK(C.FirstFailure.find("was left out for expert " + std::to_string(Y)) !=
          std::string::npos);
  }
  SECTION("a weight off by 1e-4, or not finite") {
    RouteCheck C = Broken([&](std::vector<HostTensor> &P) {
      P[size_t(Op.D)].set(5, W0.get(5) * (1 + 1e-4));
    });
    CHECK(C.BadWeights == 1);
    CHECK(C.BadChoices == 0);
    RouteCheck N = Broken([&](std::vector<HostTensor> &P) {
      P[size_t(Op.D)].setBits(7, 0x7fc00000u);
    });
    CHECK(N.NonFinite == 1);
    CHECK_FALSE(N.Pass);
  }
  SECTION("the weights not normalized") {
    RouteCheck C = Broken([&](std::vector<HostTensor> &P) {
      for (int64_t I = 0; I < T * K; ++I)
        P[size_t(Op.D)].set(I, W0.get(I) / 2.5);
    });
    CHECK(C.BadWeights == T * K);
  }
}

TEST_CASE("bf16 logits with many ties pass the check", "[route]") {
  // bf16 in [-2, 2) has few values: equal logits are common, and the
  // interpreter's choice among them must satisfy the float64 check.
  const char *Src = R"(op r {
  in  L   : bf16[T, E]
  out w   : f32[T, K]
  out ids : i32[T, K]
  w[t, j] = topk(softmax(L[t, e]), ids)
})";
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("r.kiln", Src, Diags);
  REQUIRE(Ops.size() == 1);
  for (uint64_t Seed : {1, 2, 3}) {
    std::vector<HostTensor> P = inputs(Ops[0], 64, 256, 8, Seed);
    interpretRoute(Ops[0], P);
    RouteCheck C = checkRoute(Ops[0], P);
    INFO(C.FirstFailure);
    CHECK(C.Pass);
  }
}

TEST_CASE("a router's size rules and launch plan", "[route]") {
  RouteKernelShape S;
  S.BlockTokens = 16;
  CHECK_FALSE(routeSizeProblem(S, 1, 1, 1));
  CHECK_FALSE(routeSizeProblem(S, 100, 1024, 32));
  CHECK(routeSizeProblem(S, 0, 8, 2));
  CHECK(routeSizeProblem(S, 10, 8, 9)->find("K must be at most E") !=
        std::string::npos);
  CHECK(routeSizeProblem(S, 10, 1025, 8));
  CHECK(routeSizeProblem(S, 10, 64, 33));
  CHECK(routeSizeProblem(S, int64_t(1) << 22, 1024, 8)); // T * E >= 2^31
  S.Groups = 8;
  S.KeepGroups = 2;
  CHECK(routeSizeProblem(S, 10, 60, 4)); // 60 experts in 8 groups
  CHECK_FALSE(routeSizeProblem(S, 10, 64, 16));
  CHECK(routeSizeProblem(S, 10, 64, 17)->find("hold 16 experts") !=
        std::string::npos);

  S.BiasParam = 1;
  S.IdsParam = 3;
  RouteLaunchArgs A;
  A.Logits = 0x1000, A.Bias = 0x2000, A.Weights = 0x3000, A.Ids = 0x4000;
  A.T = 33, A.E = 64, A.K = 8;
  KernelLaunchPlan Plan;
  planRouteLaunch(S, A, Plan);
  CHECK(Plan.Dims.GridX == 3);
  CHECK(Plan.Dims.BlockX == 128);
  CHECK(Plan.Dims.SmemBytes == 4 * 2 * 4 * 64);
  REQUIRE(Plan.Args.size() == 7);
  CHECK(Plan.Args[1].Pointer == 0x2000);
  CHECK(Plan.Args[3].Pointer == 0x4000);
  CHECK(Plan.Args[4].Int == 33);
  CHECK(Plan.Args[5].Int == 64);
  CHECK(Plan.Args[6].Int == 8);
  S.BiasParam = -1; // no bias: no pointer for it
  planRouteLaunch(S, A, Plan);
  CHECK(Plan.Args.size() == 6);
  A.K = 20;
  CHECK_THROWS_AS(planRouteLaunch(S, A, Plan), std::invalid_argument);
}

TEST_CASE("a router's bundle keeps its family and shape", "[route]") {
  OpModel Op = router("moe_route_deepseek");
  CompiledKernel K;
  K.Signature = signatureOf(Op);
  K.Family = Op.Family;
  KernelConfig C;
  C.BlockM = 16;
  K.Route = routeShapeOf(Op, C);
  K.Target = "sm_90a";
  K.Config = opConfigString(Op, C);
  K.ConfigSource = "test";
  K.TunedFor = ProblemSize{{"T", 64}, {"K", 8}, {"E", 256}};
  K.Entry = Op.Name;
  K.Cubin = "cubin bytes";
  std::vector<CompiledKernel> Out =
      parseBundle(serializeBundle({K}), "r.kbundle");
  REQUIRE(Out.size() == 1);
  CHECK(Out[0].Family == OpFamily::Route);
  CHECK(Out[0].Config == "block_m=16");
  CHECK(Out[0].Route.BlockTokens == 16);
  CHECK(Out[0].Route.Groups == 8);
  CHECK(Out[0].Route.KeepGroups == 4);
  CHECK(Out[0].Route.BiasParam == 1);
  CHECK(Out[0].Route.IdsParam == 3);
  CHECK(Out[0].Signature.Params.size() == 4);
}

TEST_CASE("edges of fp32: a NaN group rank, underflowing scores", "[route]") {
  const char *Src = R"(op r {
  in  L    : f32[T, E]
  in  bias : f32[E]
  out w    : f32[T, K]
  out ids  : i32[T, K]
  w[t, j] = normalize(topk(sigmoid(L[t, e]), ids, sigmoid(L[t, e]) + bias[e], 2, 1))
})";
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("r.kiln", Src, Diags);
  REQUIRE(Ops.size() == 1);
  const OpModel &Op = Ops[0];
  std::vector<HostTensor> P = inputs(Op, 1, 4, 2);
  const double Inf = std::numeric_limits<double>::infinity();
  const double Bias[4] = {Inf, -Inf, 0, 0};
  for (int64_t E = 0; E < 4; ++E) {
    P[size_t(Op.A)].set(E, 0.0);
    P[size_t(Op.Route->Bias)].set(E, Bias[E]);
  }
  interpretRoute(Op, P);
  // Group 0's rank is inf + -inf: NaN, which loses; group 1 is kept.
  CHECK(id(Op, P, 0) == 2);
  CHECK(id(Op, P, 1) == 3);
  CHECK(P[size_t(Op.D)].get(0) == 0.5);
  // Sigmoid of -90 is tiny, not 0: the weights keep its proportions.
  for (int64_t E = 0; E < 4; ++E)
    P[size_t(Op.Route->Bias)].set(E, 0.0);
  P[size_t(Op.A)].set(0, -90.0);
  P[size_t(Op.A)].set(1, -90.5);
  P[size_t(Op.A)].set(2, -95.0);
  P[size_t(Op.A)].set(3, -99.0);
  interpretRoute(Op, P);
  CHECK(std::isfinite(P[size_t(Op.D)].get(0)));
  CHECK(P[size_t(Op.D)].get(0) ==
        Approx(1 / (1 + std::exp(-0.5))).epsilon(1e-5));
}
