//===- DiagnosticsTest.cpp - Rendering errors, notes and suggestions ------===//
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Suggest.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

using namespace kiln;

namespace {

SourceLoc at(unsigned Line, unsigned Col) { return {Line, Col}; }
SourceRange span(unsigned Line, unsigned Begin, unsigned End) {
  return {at(Line, Begin), at(Line, End)};
}

const char *const Source = "op gemm {\n"
                           "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n"
                           "}\n";

} // namespace

TEST_CASE("Diagnostics: an error with its source line and caret",
          "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("gemm.kiln", Source);
  Diags.error(at(2, 30), "unknown tensor 'Bx'");
  CHECK(Diags.str() == "gemm.kiln:2:30: error: unknown tensor 'Bx'\n"
                       "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n"
                       "                             ^\n");
}

TEST_CASE("Diagnostics: ranges are underlined around the caret",
          "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("gemm.kiln", Source);
  Diags.error(span(2, 30, 32), "unknown tensor 'Bx'");
  Diags.error(at(2, 28), "bad operator", span(2, 20, 38));
  // Printed in source order: column 28 before column 30.
  CHECK(Diags.str() == "gemm.kiln:2:28: error: bad operator\n"
                       "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n"
                       "                   ~~~~~~~~^~~~~~~~~~\n"
                       "gemm.kiln:2:30: error: unknown tensor 'Bx'\n"
                       "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n"
                       "                             ^~\n");
}

TEST_CASE("Diagnostics: a range spanning lines is cut at the line's end",
          "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", "ab cd\nef\n");
  Diags.error(at(1, 4), "m", {at(1, 4), at(2, 3)});
  CHECK(Diags.str() == "t.kiln:1:4: error: m\nab cd\n   ^~\n");
}

TEST_CASE("Diagnostics: notes, warnings and counts", "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("gemm.kiln", Source);
  CHECK(!Diags.hasErrors());
  Diags.warning(at(1, 4), "unused");
  CHECK(!Diags.hasErrors());
  CHECK(Diags.warningCount() == 1);
  Diags.error(at(2, 30), "unknown tensor 'Bx'");
  Diags.note(span(1, 4, 8), "op begins here");
  Diags.note(SourceLoc(), "no location");
  CHECK(Diags.hasErrors());
  CHECK(Diags.errorCount() == 1);
  REQUIRE(Diags.diagnostics().size() == 4);
  CHECK(Diags.diagnostics()[2].Severity == DiagSeverity::Note);
  std::string S = Diags.str();
  CHECK(S.find("gemm.kiln:1:4: warning: unused\n") == 0);
  CHECK(S.find("gemm.kiln:1:4: note: op begins here\n"
               "op gemm {\n"
               "   ^~~~\n"
               "gemm.kiln: note: no location\n") != std::string::npos);
}

TEST_CASE("Diagnostics: no location, no buffer, or a line past the end",
          "[diagnostics]") {
  DiagnosticEngine NoBuffer;
  NoBuffer.error(at(3, 1), "x");
  CHECK(NoBuffer.str() == "<input>:3:1: error: x\n");
  DiagnosticEngine Diags;
  Diags.setSource("f.kiln", "one line");
  Diags.error(SourceLoc(), "whole file");
  Diags.error(at(9, 1), "far away");
  CHECK(Diags.str() ==
        "f.kiln: error: whole file\nf.kiln:9:1: error: far away\n");
}

TEST_CASE("Diagnostics: printed in source order, notes with their error, "
          "the error limit last",
          "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("o.kiln", "a\nb\nc\nd\n");
  Diags.setErrorLimit(3);
  Diags.error(at(3, 1), "third");
  Diags.note(at(1, 1), "note of the third");
  Diags.error(at(1, 1), "first");
  Diags.warning(at(2, 1), "second");
  Diags.error(at(4, 1), "fourth");
  Diags.error(at(4, 1), "over the limit");
  std::string S = Diags.str();
  size_t First = S.find("error: first"), Second = S.find("warning: second"),
         Third = S.find("error: third"), Note = S.find("note of the third"),
         Fourth = S.find("error: fourth"), Limit = S.find("too many errors");
  CHECK(First < Second);
  CHECK(Second < Third);
  CHECK(Third < Note);
  CHECK(Note < Fourth);
  CHECK(Fourth < Limit);
  CHECK(Limit != std::string::npos);
}

TEST_CASE("Diagnostics: a caret just past the end of a line", "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", "  in A : f32[M, K\n");
  Diags.error(at(1, 18), "expected ']'");
  CHECK(Diags.str() == "t.kiln:1:18: error: expected ']'\n"
                       "  in A : f32[M, K\n"
                       "                 ^\n");
}

TEST_CASE("Diagnostics: tabs, CRLF, control bytes and UTF-8 keep alignment",
          "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", "\tin A : x\r\n");
  Diags.error(at(1, 9), "bad dtype", span(1, 9, 10));
  CHECK(Diags.str() == "t.kiln:1:9: error: bad dtype\n"
                       "\tin A : x\n"
                       "\t       ^\n");
  DiagnosticEngine Ctl;
  Ctl.setSource("t.kiln", std::string("a\x01 b", 4));
  Ctl.error(at(1, 4), "here");
  CHECK(Ctl.str() == "t.kiln:1:4: error: here\na? b\n   ^\n");
  DiagnosticEngine Utf;
  Utf.setSource("t.kiln", "x \xe2\x88\x92 y");
  Utf.error(at(1, 7), "y");
  CHECK(Utf.str() == "t.kiln:1:7: error: y\nx \xe2\x88\x92 y\n    ^\n");
}

TEST_CASE("Diagnostics: the error limit", "[diagnostics]") {
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", "x\n");
  Diags.setErrorLimit(3);
  for (int I = 0; I < 10; ++I) {
    Diags.error(at(1, 1), "e" + std::to_string(I));
    Diags.note(at(1, 1), "n" + std::to_string(I));
  }
  CHECK(Diags.errorCount() == 4);
  REQUIRE(Diags.diagnostics().size() == 7);
  CHECK(Diags.diagnostics()[5].Message == "n2");
  CHECK(Diags.diagnostics()[6].Message ==
        "too many errors emitted, stopping now");
  CHECK(!Diags.diagnostics()[6].Loc.isValid());

  DiagnosticEngine Unlimited;
  Unlimited.setErrorLimit(0);
  for (int I = 0; I < 50; ++I)
    Unlimited.error(SourceLoc(), "e");
  CHECK(Unlimited.errorCount() == 50);
}

TEST_CASE("Diagnostics: streaming and several buffers", "[diagnostics]") {
  std::ostringstream OS;
  DiagnosticEngine Diags;
  Diags.setStream(&OS);
  Diags.setSource("a.kiln", "aaa\n");
  Diags.error(at(1, 2), "in a");
  CHECK(OS.str() == "a.kiln:1:2: error: in a\naaa\n ^\n");
  Diags.setSource("b.kiln", "bbb\n");
  Diags.error(at(1, 3), "in b");
  CHECK(Diags.fileName(Diags.diagnostics()[0]) == "a.kiln");
  CHECK(Diags.fileName(Diags.diagnostics()[1]) == "b.kiln");
  CHECK(Diags.str() == "a.kiln:1:2: error: in a\naaa\n ^\n"
                       "b.kiln:1:3: error: in b\nbbb\n  ^\n");
  // Registering the current buffer again changes nothing.
  Diags.setSource("b.kiln", "bbb\n");
  Diags.error(at(1, 1), "again");
  CHECK(Diags.diagnostics()[2].File == Diags.diagnostics()[1].File);
}

TEST_CASE("Suggest: edit distance", "[diagnostics]") {
  CHECK(editDistance("", "") == 0);
  CHECK(editDistance("abc", "abc") == 0);
  CHECK(editDistance("abc", "ABC") == 0);
  CHECK(editDistance("blockm", "block_m") == 1);
  CHECK(editDistance("rleu", "relu") == 1); // A swap counts once.
  CHECK(editDistance("kitten", "sitting") == 3);
  CHECK(editDistance("", "abc") == 3);
}

TEST_CASE("Suggest: only plausible typos are suggested", "[diagnostics]") {
  std::vector<std::string> Knobs = {"block_m",   "block_n", "block_k", "stages",
                                    "cluster_m", "raster",  "group"};
  CHECK(closestName("blockm", Knobs) == std::optional<std::string>("block_m"));
  CHECK(closestName("stage", Knobs) == std::optional<std::string>("stages"));
  CHECK(closestName("clustr_m", Knobs) ==
        std::optional<std::string>("cluster_m"));
  CHECK(closestName("Group", Knobs) == std::optional<std::string>("group"));
  CHECK(!closestName("tile", Knobs));
  CHECK(!closestName("", Knobs));
  // An exact match is no typo.
  CHECK(!closestName("group", std::vector<std::string>{"group"}));
  std::vector<std::string> Tensors = {"A", "B", "D", "bias"};
  CHECK(closestName("Bx", Tensors) == std::optional<std::string>("B"));
  CHECK(!closestName("x", Tensors)); // One letter is never "close".
  CHECK(didYouMean("biass", Tensors) == "; did you mean 'bias'?");
  CHECK(didYouMean("zzz", Tensors).empty());
}
