//===- Token.h - Tokens of the kiln DSL -------------------------*- C++ -*-===//
//
// The token kinds the lexer produces and the Token record the parser reads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_TOKEN_H
#define KILN_FRONTEND_TOKEN_H

#include "kiln/Frontend/SourceRange.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln {

enum class TokenKind {
  Eof,
  Unknown, ///< A character the DSL does not use (already reported).
  Ident,
  Int,
  Float,
  // Keywords.
  KwOp,
  KwIn,
  KwOut,
  KwTune,
  KwRequire,
  KwSum,
  // Punctuation and operators.
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Comma,
  Colon,
  Assign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  EqEq,
  NotEq,
  AmpAmp,
  PipePipe,
  Bang,
};

/// How a kind is named in messages: "'{'", "identifier", "end of file".
std::string_view tokenKindName(TokenKind K);

struct Token {
  TokenKind Kind = TokenKind::Eof;
  std::string_view Text;    ///< The characters of the token in the buffer.
  SourceRange Range;        ///< Range.Begin is the token's location.
  size_t Offset = 0;        ///< Byte offset of the first character.
  bool AtLineStart = false; ///< First token on its line.
  int64_t IntValue = 0;     ///< Int.
  double FloatValue = 0;    ///< Float.

  SourceLoc loc() const { return Range.Begin; }
  bool is(TokenKind K) const { return Kind == K; }
};

} // namespace kiln

#endif // KILN_FRONTEND_TOKEN_H
