//===- ParserTest.cpp - The kiln DSL grammar, recovery and robustness -----===//
#include "kiln/Frontend/Parser.h"
#include "kiln/Frontend/Frontend.h"

#include <catch2/catch.hpp>

#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln;

namespace {

const char *const BriefExample = R"(# comments run to end of line
op gemm_fp8 {
  in  A       : f8e4m3[M, K]        # K contiguous
  in  B       : f8e4m3[N, K]
  in  scale_a : f32
  in  scale_b : f32
  in  bias    : bf16[N]
  out D       : bf16[M, N]
  D[m, n] = bf16(sum(k) A[m, k] * B[n, k] * scale_a * scale_b + bias[n])
  tune {
    block_m in [64, 128, 256]
    block_k = 128
    raster  in [m, n]
    require block_m * block_n <= 128 * 256
    require cluster_m == 1 || block_m >= 128
  }
}
)";

std::unique_ptr<Module> parseOk(const std::string &Text) {
  DiagnosticEngine Diags;
  auto M = parseModule("t.kiln", Text, Diags);
  INFO(Diags.str());
  REQUIRE(!Diags.hasErrors());
  return M;
}

/// Parses Text and returns every error as "line:col: message".
std::vector<std::string> parseErrors(const std::string &Text) {
  DiagnosticEngine Diags;
  parseModule("t.kiln", Text, Diags);
  std::vector<std::string> Out;
  for (const Diagnostic &D : Diags.diagnostics())
    if (D.Severity == DiagSeverity::Error)
      Out.push_back(std::to_string(D.Loc.Line) + ":" +
                    std::to_string(D.Loc.Col) + ": " + D.Message);
  return Out;
}

/// The right-hand side of `D[m, n] = <Rhs>` printed back.
std::string roundTrip(const std::string &Rhs) {
  auto M = parseOk("op x {\n D[m, n] = " + Rhs + "\n}\n");
  REQUIRE(M->Ops.size() == 1);
  REQUIRE(M->Ops[0].Computes.size() == 1);
  return exprToString(*M->Ops[0].Computes[0].Rhs);
}

/// `require <Cond>` printed back from its tree.
std::string requireTree(const std::string &Cond) {
  auto M = parseOk("op x {\n tune {\n  require " + Cond + "\n }\n}\n");
  return exprToString(*M->Ops[0].Tunes[0].Requires[0].Cond);
}

std::string shapeOf(const ParamDecl &P) {
  std::string S;
  for (const ShapeDimDecl &D : P.Shape) {
    S += S.empty() ? "" : ",";
    S += D.Sym.empty() ? std::to_string(D.Constant) : D.Sym;
    if (D.Divisor != 1)
      S += "/" + std::to_string(D.Divisor);
  }
  return S;
}

} // namespace

TEST_CASE("Parser: the brief's example", "[parser]") {
  auto M = parseOk(BriefExample);
  CHECK(M->FileName == "t.kiln");
  REQUIRE(M->Ops.size() == 1);
  const OpDecl &Op = M->Ops[0];
  CHECK(Op.Name == "gemm_fp8");
  CHECK(Op.NameRange.Begin.Line == 2);
  CHECK(Op.NameRange.Begin.Col == 4);
  CHECK(!Op.HasSyntaxErrors);

  REQUIRE(Op.Params.size() == 6);
  CHECK(Op.Params[0].Name == "A");
  CHECK(!Op.Params[0].IsOutput);
  CHECK(Op.Params[0].TypeName == "f8e4m3");
  CHECK(shapeOf(Op.Params[0]) == "M,K");
  CHECK(Op.Params[2].Shape.empty());
  CHECK(Op.Params[5].IsOutput);
  CHECK(Op.Params[5].Name == "D");
  CHECK(Op.Params[5].Range.Begin.Line == 8);
  CHECK(Op.Params[5].Range.Begin.Col == 3);

  REQUIRE(Op.Computes.size() == 1);
  const ComputeStmt &S = Op.Computes[0];
  CHECK(exprToString(*S.Lhs) == "D[m, n]");
  CHECK(exprToString(*S.Rhs) ==
        "bf16(sum(k) A[m, k] * B[n, k] * scale_a * scale_b + bias[n])");
  CHECK(S.AssignLoc.Line == 9);
  CHECK(S.AssignLoc.Col == 11);

  REQUIRE(Op.Tunes.size() == 1);
  const TuneBlock &TB = Op.Tunes[0];
  REQUIRE(TB.Knobs.size() == 3);
  CHECK(TB.Knobs[0].Name == "block_m");
  CHECK(!TB.Knobs[0].IsFixed);
  REQUIRE(TB.Knobs[0].Values.size() == 3);
  CHECK(std::get<int64_t>(TB.Knobs[0].Values[2].Value) == 256);
  CHECK(TB.Knobs[1].IsFixed);
  CHECK(std::get<int64_t>(TB.Knobs[1].Values[0].Value) == 128);
  CHECK(std::get<std::string>(TB.Knobs[2].Values[1].Value) == "n");
  REQUIRE(TB.Requires.size() == 2);
  CHECK(TB.Requires[0].Text == "block_m * block_n <= 128 * 256");
  CHECK(TB.Requires[1].Text == "cluster_m == 1 || block_m >= 128");
  CHECK(TB.Requires[1].Range.Begin.Line == 15);
  CHECK(TB.Requires[1].Range.Begin.Col == 5);
}

TEST_CASE("Parser: shapes", "[parser]") {
  auto M = parseOk("op x {\n in sa : f32[M, K / 128]\n in c : f16[4, N]\n "
                   "in s : f32\n}\n");
  const auto &P = M->Ops[0].Params;
  CHECK(shapeOf(P[0]) == "M,K/128");
  CHECK(P[0].Shape[1].Range.Begin.Col == 17);
  CHECK(P[0].Shape[1].Range.End.Col == 24);
  CHECK(shapeOf(P[1]) == "4,N");
  CHECK(P[2].Shape.empty());
}

TEST_CASE("Parser: sum(k) binds tighter than + and takes a product",
          "[parser]") {
  auto M = parseOk("op x {\n D[m, n] = sum(k) a * b * c + d\n}\n");
  const Expr &R = *M->Ops[0].Computes[0].Rhs;
  REQUIRE(R.K == Expr::Kind::Binary);
  CHECK(R.Op == Expr::OpKind::Add);
  REQUIRE(R.Args[0]->K == Expr::Kind::Sum);
  CHECK(R.Args[0]->Name == "k");
  CHECK(exprToString(*R.Args[0]->Args[0]) == "a * b * c");
  CHECK(R.Args[1]->Name == "d");

  // A factor before the sum: the sum still takes the rest of the product.
  auto M2 = parseOk("op x {\n D[m, n] = 2 * sum(k) a * b\n}\n");
  const Expr &R2 = *M2->Ops[0].Computes[0].Rhs;
  REQUIRE(R2.Op == Expr::OpKind::Mul);
  CHECK(R2.Args[0]->IntValue == 2);
  CHECK(R2.Args[1]->K == Expr::Kind::Sum);
  CHECK(exprToString(R2) == "2 * (sum(k) a * b)");
}

TEST_CASE("Parser: precedence and associativity round-trip", "[parser]") {
  CHECK(roundTrip("a - b - c") == "a - b - c");
  CHECK(roundTrip("a - (b - c)") == "a - (b - c)");
  CHECK(roundTrip("(a + b) * c") == "(a + b) * c");
  CHECK(roundTrip("a + b * c") == "a + b * c");
  CHECK(roundTrip("-a * b") == "-a * b");
  CHECK(roundTrip("-(a * b)") == "-(a * b)");
  CHECK(roundTrip("a / b / c") == "a / b / c");
  CHECK(roundTrip("(sum(k) a[m, k] * b[n, k]) * c") ==
        "(sum(k) a[m, k] * b[n, k]) * c");
  CHECK(roundTrip("gelu(x + 1.5) + relu(y)") == "gelu(x + 1.5) + relu(y)");
  CHECK(roundTrip("0.125 * x") == "0.125 * x");
  CHECK(roundTrip("2.0 * x") == "2.0 * x");
  CHECK(roundTrip("a[m, k / 128]") == "a[m, k / 128]");
  CHECK(requireTree("a || b && c") == "a || b && c");
  CHECK(requireTree("(a || b) && c") == "(a || b) && c");
  CHECK(requireTree("!(a == b) || a * b <= 128 * 256 % 7") ==
        "!(a == b) || a * b <= 128 * 256 % 7");
  CHECK(requireTree("a < b == c > d") == "a < b == c > d");
}

TEST_CASE("Parser: constraint text drops comments and extra blanks",
          "[parser]") {
  auto M = parseOk("op x {\n tune {\n  require block_m  *\n   block_n # c\n"
                   "     <= 4096\n }\n}\n");
  CHECK(M->Ops[0].Tunes[0].Requires[0].Text == "block_m * block_n <= 4096");
}

TEST_CASE("Parser: negative tune values parse (sema rejects them)",
          "[parser]") {
  auto M =
      parseOk("op x {\n tune {\n  stages in [-1, 2]\n  group = -8\n }\n}\n");
  const auto &K = M->Ops[0].Tunes[0].Knobs;
  CHECK(std::get<int64_t>(K[0].Values[0].Value) == -1);
  CHECK(std::get<int64_t>(K[1].Values[0].Value) == -8);
  auto E = parseOk("op x {\n tune {\n  stages in []\n }\n}\n");
  CHECK(E->Ops[0].Tunes[0].Knobs[0].Values.empty());
}

TEST_CASE("Parser: several ops in one file", "[parser]") {
  auto M = parseOk("op a {\n}\nop b {\n in X : f32\n}\n");
  REQUIRE(M->Ops.size() == 2);
  CHECK(M->Ops[0].Name == "a");
  CHECK(M->Ops[1].Name == "b");
  CHECK(M->Ops[1].Params.size() == 1);
}

TEST_CASE("Parser: syntax errors are located", "[parser]") {
  using V = std::vector<std::string>;
  CHECK(parseErrors("op x {\n in A : f8e4m3[M, K\n}\n") ==
        V{"2:20: expected ',' or ']' in the shape of 'A'"});
  CHECK(parseErrors("op x {\n in A f32\n}\n") ==
        V{"2:7: expected ':' and a dtype after 'A', found 'f32'"});
  CHECK(parseErrors("op x {\n in : f32\n}\n") ==
        V{"2:5: expected a parameter name after 'in', found ':'"});
  CHECK(parseErrors("op x {\n in A : f32[]\n}\n") ==
        V{"2:12: empty shape for 'A'; a rank-0 tensor is declared without "
          "brackets"});
  CHECK(parseErrors("op x {\n in A : f32[M / K]\n}\n") ==
        V{"2:17: expected an integer block size after '/', found 'K'"});
  CHECK(parseErrors("op x {\n D[m, n] = \n}\n") ==
        V{"2:11: expected an expression"});
  CHECK(parseErrors("op x {\n D[m, n] + 1 = A\n}\n") ==
        V{"2:10: expected '=' after 'D[m, n]', found '+'"});
  CHECK(parseErrors("op x {\n D[m, n] = sum(k, j) A\n}\n") ==
        V{"2:17: sum(...) reduces over exactly one index"});
  CHECK(parseErrors("op x {\n D[m, n] = sum k A\n}\n") ==
        V{"2:16: expected '(' after 'sum', found 'k'"});
  CHECK(parseErrors("op x {\n D[m, n] = A[]\n}\n") ==
        V{"2:14: expected an index inside '[]'"});
  CHECK(parseErrors("op x {\n D[m, n] = (a + b\n}\n") ==
        V{"2:18: expected ')'"});
  CHECK(parseErrors("op x {\n D[m, n] = f(a b)\n}\n") ==
        V{"2:16: expected ',' or ')' after the argument, found 'b'"});
  CHECK(parseErrors("op x {\n tune {\n  block_m [64]\n }\n}\n") ==
        V{"3:11: expected 'in [...]' or '= value' after 'block_m', found "
          "'['"});
  CHECK(parseErrors("op x {\n tune {\n  block_m in 64\n }\n}\n") ==
        V{"3:14: expected '[' to begin the values of 'block_m', found '64'"});
  CHECK(parseErrors("op x {\n tune {\n  block_m = 1.5\n }\n}\n") ==
        V{"3:13: expected an integer or an identifier as a value of "
          "'block_m', found '1.5'"});
  CHECK(parseErrors("op x {\n tune {\n  in A : f32\n }\n}\n") ==
        V{"3:3: expected a tuning parameter ('name in [...]' or 'name = "
          "value') or 'require', found 'in'"});
  CHECK(parseErrors("op x {\n block_m in [64]\n}\n") ==
        V{"2:2: tuning parameter 'block_m' must be declared inside a 'tune "
          "{ ... }' block"});
  CHECK(parseErrors("op x {\n require 1\n}\n") ==
        V{"2:2: 'require' must be inside a 'tune { ... }' block"});
  CHECK(parseErrors("op x {\n 42\n}\n") ==
        V{"2:2: expected a parameter ('in' or 'out'), the computation or "
          "'tune', found '42'"});
  CHECK(parseErrors("gemm x {\n}\n") ==
        V{"1:1: expected 'op' or 'layer', found 'gemm'"});
  CHECK(parseErrors("op {\n}\n") ==
        V{"1:4: expected the op's name after 'op', found '{'"});
  CHECK(parseErrors("op x\n in A : f32\n") ==
        V{"1:5: expected '{' to begin op 'x'"});
  CHECK(parseErrors("op x {\n tune\n}\n") ==
        V{"2:6: expected '{' after 'tune'"});
}

TEST_CASE("Parser: unterminated blocks at end of file", "[parser]") {
  DiagnosticEngine Diags;
  auto M = parseModule("t.kiln", "op gemm {\n  in A : f32\n", Diags);
  REQUIRE(Diags.diagnostics().size() == 2);
  const Diagnostic &E = Diags.diagnostics()[0];
  CHECK(E.Message == "expected '}' at end of op 'gemm'");
  CHECK(E.Loc.Line == 2);
  CHECK(E.Loc.Col == 13);
  const Diagnostic &N = Diags.diagnostics()[1];
  CHECK(N.Severity == DiagSeverity::Note);
  CHECK(N.Message == "to match this '{'");
  CHECK(N.Loc.Line == 1);
  CHECK(N.Loc.Col == 9);
  CHECK(M->Ops[0].HasSyntaxErrors);

  // An open tune block: one error, not one per enclosing block.
  CHECK(parseErrors("op x {\n tune {\n  block_m in [64]\n") ==
        std::vector<std::string>{"3:18: expected '}' at end of the tune "
                                 "block"});
  CHECK(parseErrors("op x {\n D[m, n] = sum(k) A[m, k") ==
        std::vector<std::string>{"2:25: expected ',' or ']' after the index",
                                 "2:25: expected '}' at end of op 'x'"});
  CHECK(parseErrors("op") ==
        std::vector<std::string>{"1:3: expected the op's name after 'op'",
                                 "1:3: expected '{' to begin the op"});
}

TEST_CASE("Parser: a missing '}' before the next op", "[parser]") {
  auto Errors = parseErrors("op a {\n in A : f32\n\nop b {\n in B : f32\n}\n");
  CHECK(Errors == std::vector<std::string>{"2:12: expected '}' at end of op "
                                           "'a'"});
  DiagnosticEngine Diags;
  auto M = parseModule("t.kiln", "op a {\n in A : f32\n\nop b {\n}\n", Diags);
  REQUIRE(M->Ops.size() == 2);
  CHECK(M->Ops[0].HasSyntaxErrors);
  CHECK(!M->Ops[1].HasSyntaxErrors);
  CHECK(M->Ops[1].Name == "b");
}

TEST_CASE("Parser: recovery reports one error per broken statement",
          "[parser]") {
  auto Errors = parseErrors("op x {\n"
                            "  in  A : f8e4m3[M, K\n"
                            "  in  B f8e4m3[N, K]\n"
                            "  out D : bf16[M, N]\n"
                            "  D[m, n] = sum(k) A[m, k] * * B[n, k]\n"
                            "  tune {\n"
                            "    block_m in [64 128]\n"
                            "    stages in [2, 3]\n"
                            "  }\n"
                            "}\n");
  CHECK(Errors ==
        std::vector<std::string>{
            "2:22: expected ',' or ']' in the shape of 'A'",
            "3:9: expected ':' and a dtype after 'B', found 'f8e4m3'",
            "5:30: expected an expression, found '*'",
            "7:20: expected ',' or ']' in the values of 'block_m', found "
            "'128'"});
  // The statements after each error were still parsed.
  DiagnosticEngine Diags;
  auto M = parseModule("t.kiln",
                       "op x {\n in A f32\n out D : bf16[M, N]\n tune {\n "
                       "  block_m in [64 128]\n  stages in [2]\n }\n}\n",
                       Diags);
  REQUIRE(M->Ops.size() == 1);
  CHECK(M->Ops[0].Params.size() == 1);
  CHECK(M->Ops[0].Params[0].Name == "D");
  REQUIRE(M->Ops[0].Tunes.size() == 1);
  REQUIRE(M->Ops[0].Tunes[0].Knobs.size() == 1);
  CHECK(M->Ops[0].Tunes[0].Knobs[0].Name == "stages");
}

TEST_CASE("Parser: a bad character is reported once", "[parser]") {
  DiagnosticEngine Diags;
  auto M = parseModule("t.kiln",
                       "op x {\n D[m, n] = sum(k) A[m, k] @ B[n, k]\n}\n"
                       "op y {\n}\n",
                       Diags);
  REQUIRE(Diags.errorCount() == 1);
  CHECK(Diags.diagnostics()[0].Message == "unexpected character '@'");
  CHECK(M->Ops[0].HasSyntaxErrors);
  CHECK(!M->Ops[1].HasSyntaxErrors);
  // Inside an otherwise well-formed statement, too.
  DiagnosticEngine Diags2;
  auto M2 = parseModule("t.kiln", "op x {\n in A : f32 $\n}\n", Diags2);
  CHECK(Diags2.errorCount() == 1);
  CHECK(M2->Ops[0].HasSyntaxErrors);
}

TEST_CASE("Parser: deep nesting is an error, not a stack overflow",
          "[parser]") {
  std::string Deep(100000, '(');
  auto Errors = parseErrors("op x {\n D[m, n] = " + Deep + "a\n}\n");
  REQUIRE(Errors.size() == 1);
  CHECK(Errors[0].find("expression is nested too deeply") != std::string::npos);
  std::string Neg(100000, '-');
  CHECK(
      parseErrors("op x {\n tune {\n  require " + Neg + "1\n }\n}\n").size() ==
      1);
  // Moderate nesting is fine.
  std::string Ok = std::string(50, '(') + "a" + std::string(50, ')');
  CHECK(parseErrors("op x {\n D[m, n] = " + Ok + "\n}\n").empty());
}

TEST_CASE("Parser: printAST shows an indented tree", "[parser]") {
  auto M = parseOk(BriefExample);
  std::ostringstream OS;
  printAST(*M, OS);
  std::string S = OS.str();
  CHECK(S.rfind("module \"t.kiln\"\n  op gemm_fp8 @2:1\n"
                "    in A : f8e4m3[M, K] @3:3\n",
                0) == 0);
  CHECK(S.find("    out D : bf16[M, N] @8:3\n") != std::string::npos);
  CHECK(S.find("    compute D[m, n] = @9:11\n"
               "      call bf16 @9:13\n"
               "        binary + @9:63\n"
               "          sum over k @9:18\n") != std::string::npos);
  CHECK(S.find("                  element A @9:25\n"
               "                    name m @9:27\n") != std::string::npos);
  CHECK(S.find("      knob block_m in [64, 128, 256] @11:5\n") !=
        std::string::npos);
  CHECK(S.find("      knob block_k = 128 @12:5\n") != std::string::npos);
  CHECK(S.find("      require block_m * block_n <= 128 * 256 @14:5\n"
               "        binary <= @14:31\n") != std::string::npos);
}

//===----------------------------------------------------------------------===//
// Robustness: random input must never crash or hang, and every error must be
// located inside the buffer (or carry no location at all).
//===----------------------------------------------------------------------===//

namespace {

void checkLocated(const std::string &Text, const DiagnosticEngine &Diags) {
  unsigned Lines = 1;
  for (char C : Text)
    Lines += C == '\n';
  for (const Diagnostic &D : Diags.diagnostics()) {
    if (!D.Loc.isValid())
      continue;
    INFO(D.Message);
    CHECK(D.Loc.Line <= Lines);
    CHECK(D.Loc.Col >= 1);
  }
}

void runEverything(const std::string &Text) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("fuzz.kiln", Text, Diags);
  if (Diags.hasErrors())
    CHECK(Ops.empty());
  checkLocated(Text, Diags);
  std::ostringstream OS;
  Diags.printAll(OS); // Rendering must not crash either.
  DiagnosticEngine D2;
  auto M = parseModule("fuzz.kiln", Text, D2);
  printAST(*M, OS);
}

} // namespace

TEST_CASE("Parser: random bytes", "[parser][fuzz]") {
  std::mt19937 Rng(1234);
  for (int Iter = 0; Iter < 2000; ++Iter) {
    std::string Text(Rng() % 200, '\0');
    for (char &C : Text)
      C = char(Rng() % 256);
    runEverything(Text);
  }
}

TEST_CASE("Parser: random token soup", "[parser][fuzz]") {
  const char *Vocab[] = {"op",
                         "in",
                         "out",
                         "tune",
                         "require",
                         "sum",
                         "gemm",
                         "A",
                         "B",
                         "D",
                         "m",
                         "n",
                         "k",
                         "K",
                         "M",
                         "N",
                         ":",
                         "[",
                         "]",
                         "{",
                         "}",
                         "(",
                         ")",
                         ",",
                         "=",
                         "==",
                         "+",
                         "-",
                         "*",
                         "/",
                         "%",
                         "<=",
                         "&&",
                         "||",
                         "!",
                         "128",
                         "0",
                         "1.5",
                         "\n",
                         " ",
                         "bf16",
                         "f8e4m3",
                         "f4e2m1",
                         "relu",
                         "block_m",
                         "raster",
                         "stages",
                         "#c\n",
                         "@",
                         "65536",
                         "9223372036854775807",
                         "99999999999999999999",
                         "k / 128"};
  std::mt19937 Rng(99);
  for (int Iter = 0; Iter < 3000; ++Iter) {
    std::string Text;
    int N = int(Rng() % 80);
    for (int I = 0; I < N; ++I) {
      Text += Vocab[Rng() % (sizeof(Vocab) / sizeof(Vocab[0]))];
      Text += ' ';
    }
    runEverything(Text);
  }
}

TEST_CASE("Parser: mutations of a valid op", "[parser][fuzz]") {
  const std::string Base = BriefExample;
  std::mt19937 Rng(7);
  for (int Iter = 0; Iter < 4000; ++Iter) {
    std::string Text = Base;
    int Edits = 1 + int(Rng() % 4);
    for (int E = 0; E < Edits && !Text.empty(); ++E) {
      size_t Pos = Rng() % Text.size();
      switch (Rng() % 4) {
      case 0: // Delete a run.
        Text.erase(Pos, 1 + Rng() % 6);
        break;
      case 1: // Duplicate a run.
        Text.insert(Pos, Text.substr(Pos, 1 + Rng() % 12));
        break;
      case 2: // Swap in a structural character.
        Text[Pos] = "{}[](),:=*+-/<>!#\n 0kmn"[Rng() % 24];
        break;
      default: // Truncate.
        Text.resize(Pos);
        break;
      }
    }
    runEverything(Text);
  }
}
