//===- LexerTest.cpp - Tokens of the kiln DSL -----------------------------===//
#include "kiln/Frontend/Lexer.h"

#include <catch2/catch.hpp>

#include <list>
#include <string>
#include <vector>

using namespace kiln;

namespace {

std::vector<Token> lexOk(const std::string &Source) {
  // Token::Text points into the buffer, which must outlive the tokens.
  static std::list<std::string> Buffers;
  const std::string &Text = Buffers.emplace_back(Source);
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", Text);
  std::vector<Token> Toks = lex(Text, Diags);
  INFO(Diags.str());
  REQUIRE(!Diags.hasErrors());
  return Toks;
}

std::vector<TokenKind> kinds(const std::vector<Token> &Toks) {
  std::vector<TokenKind> K;
  for (const Token &T : Toks)
    K.push_back(T.Kind);
  return K;
}

/// The first error as "line:col: message".
std::string firstError(const std::string &Text) {
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", Text);
  lex(Text, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    if (D.Severity == DiagSeverity::Error)
      return std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Col) +
             ": " + D.Message;
  return "";
}

} // namespace

TEST_CASE("Lexer: identifiers, keywords and punctuation", "[lexer]") {
  auto Toks = lexOk("op gemm { in A : f8e4m3[M, K / 128] }");
  using TK = TokenKind;
  CHECK(kinds(Toks) == std::vector<TK>{TK::KwOp, TK::Ident, TK::LBrace,
                                       TK::KwIn, TK::Ident, TK::Colon,
                                       TK::Ident, TK::LBracket, TK::Ident,
                                       TK::Comma, TK::Ident, TK::Slash, TK::Int,
                                       TK::RBracket, TK::RBrace, TK::Eof});
  CHECK(Toks[1].Text == "gemm");
  CHECK(Toks[6].Text == "f8e4m3");
  CHECK(Toks[12].IntValue == 128);
}

TEST_CASE("Lexer: every keyword, and words that only start like one",
          "[lexer]") {
  auto Toks = lexOk("op in out tune require sum inner output summary _x x1");
  using TK = TokenKind;
  CHECK(kinds(Toks) == std::vector<TK>{TK::KwOp, TK::KwIn, TK::KwOut,
                                       TK::KwTune, TK::KwRequire, TK::KwSum,
                                       TK::Ident, TK::Ident, TK::Ident,
                                       TK::Ident, TK::Ident, TK::Eof});
}

TEST_CASE("Lexer: operators, longest match first", "[lexer]") {
  auto Toks = lexOk("= == != ! < <= > >= && || + - * / % ( ) ,");
  using TK = TokenKind;
  CHECK(kinds(Toks) ==
        std::vector<TK>{TK::Assign, TK::EqEq, TK::NotEq, TK::Bang, TK::Less,
                        TK::LessEq, TK::Greater, TK::GreaterEq, TK::AmpAmp,
                        TK::PipePipe, TK::Plus, TK::Minus, TK::Star, TK::Slash,
                        TK::Percent, TK::LParen, TK::RParen, TK::Comma,
                        TK::Eof});
  // No spaces needed.
  CHECK(kinds(lexOk("a<=b")) ==
        std::vector<TK>{TK::Ident, TK::LessEq, TK::Ident, TK::Eof});
  CHECK(kinds(lexOk("!=!")) == std::vector<TK>{TK::NotEq, TK::Bang, TK::Eof});
}

TEST_CASE("Lexer: numbers", "[lexer]") {
  auto Toks = lexOk("0 128 1.5 2. .25 1e-3 3E+2 9223372036854775807");
  REQUIRE(Toks.size() == 9);
  CHECK(Toks[0].Kind == TokenKind::Int);
  CHECK(Toks[1].IntValue == 128);
  CHECK(Toks[2].Kind == TokenKind::Float);
  CHECK(Toks[2].FloatValue == 1.5);
  CHECK(Toks[3].Kind == TokenKind::Float);
  CHECK(Toks[3].FloatValue == 2.0);
  CHECK(Toks[4].FloatValue == 0.25);
  CHECK(Toks[5].FloatValue == Approx(1e-3));
  CHECK(Toks[6].FloatValue == 300.0);
  CHECK(Toks[7].IntValue == INT64_MAX);
}

TEST_CASE("Lexer: malformed numbers are located errors", "[lexer]") {
  CHECK(firstError("x = 128k") == "1:5: malformed number '128k'");
  CHECK(firstError("\n  1.5.2") == "2:3: malformed number '1.5.2'");
  CHECK(firstError("9223372036854775808") ==
        "1:1: integer literal '9223372036854775808' is too large");
  CHECK(firstError("1e") == "1:1: malformed number '1e'");
}

TEST_CASE("Lexer: comments, line starts and locations", "[lexer]") {
  auto Toks = lexOk("# header\nop x {  # trailing\n\tin A : f32\n}\n");
  REQUIRE(Toks.size() == 9);
  CHECK(Toks[0].Kind == TokenKind::KwOp);
  CHECK(Toks[0].loc().Line == 2);
  CHECK(Toks[0].loc().Col == 1);
  CHECK(Toks[0].AtLineStart);
  CHECK(!Toks[1].AtLineStart);
  CHECK(Toks[3].Kind == TokenKind::KwIn);
  CHECK(Toks[3].loc().Line == 3);
  CHECK(Toks[3].loc().Col == 2); // A tab is one column.
  CHECK(Toks[3].AtLineStart);
  CHECK(Toks[4].Range.Begin.Col == 5);
  CHECK(Toks[4].Range.End.Col == 6);
  CHECK(Toks[4].Offset == 32);
  CHECK(Toks[7].Kind == TokenKind::RBrace);
  CHECK(Toks[7].loc().Line == 4);
}

TEST_CASE("Lexer: end of file sits just past the last token", "[lexer]") {
  auto Toks = lexOk("op x {\n}\n\n# done\n");
  REQUIRE(Toks.back().Kind == TokenKind::Eof);
  CHECK(Toks.back().loc().Line == 2);
  CHECK(Toks.back().loc().Col == 2);
  auto Empty = lexOk("");
  REQUIRE(Empty.size() == 1);
  CHECK(Empty[0].Kind == TokenKind::Eof);
  CHECK(Empty[0].loc().Line == 1);
  CHECK(Empty[0].loc().Col == 1);
  CHECK(lexOk("# only a comment").size() == 1);
}

TEST_CASE("Lexer: CRLF line endings", "[lexer]") {
  auto Toks = lexOk("op x {\r\n  in A : f32\r\n}\r\n");
  REQUIRE(Toks.size() == 9);
  CHECK(Toks[3].loc().Line == 2);
  CHECK(Toks[3].loc().Col == 3);
  CHECK(Toks[3].AtLineStart);
}

TEST_CASE("Lexer: bad characters become one Unknown token per run", "[lexer]") {
  DiagnosticEngine Diags;
  std::string Text = "a @$ b";
  Diags.setSource("t.kiln", Text);
  auto Toks = lex(Text, Diags);
  REQUIRE(Toks.size() == 4);
  CHECK(Toks[1].Kind == TokenKind::Unknown);
  CHECK(Toks[1].Text == "@$");
  CHECK(Toks[2].Text == "b");
  REQUIRE(Diags.errorCount() == 1);
  CHECK(Diags.diagnostics()[0].Message == "unexpected character '@'");

  CHECK(firstError("a & b") == "1:3: unexpected character '&'; did you mean "
                               "'&&'?");
  CHECK(firstError("a | b") == "1:3: unexpected character '|'; did you mean "
                               "'||'?");
  CHECK(firstError("x\x01") == "1:2: unexpected character '\\x01'");
  CHECK(firstError("x = a \xe2\x88\x92 b") ==
        "1:7: unexpected non-ASCII character (kiln source is ASCII)");
  CHECK(firstError("in A : f32;") == "1:11: unexpected character ';'");
}

TEST_CASE("Lexer: a NUL byte does not end the buffer", "[lexer]") {
  DiagnosticEngine Diags;
  std::string Text("a\0b", 3);
  Diags.setSource("t.kiln", Text);
  auto Toks = lex(Text, Diags);
  REQUIRE(Toks.size() == 4);
  CHECK(Toks[2].Text == "b");
  CHECK(Diags.errorCount() == 1);
}

TEST_CASE("Lexer: token kind names for messages", "[lexer]") {
  CHECK(tokenKindName(TokenKind::RBracket) == "']'");
  CHECK(tokenKindName(TokenKind::Eof) == "end of file");
  CHECK(tokenKindName(TokenKind::KwTune) == "'tune'");
  CHECK(tokenKindName(TokenKind::AmpAmp) == "'&&'");
}
