//===- Lexer.h - Turning .kiln text into tokens -----------------*- C++ -*-===//
//
// The lexer of the kiln DSL. Comments run from '#' to the end of the line;
// newlines are not tokens (the parser uses Token::AtLineStart to recover).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_LEXER_H
#define KILN_FRONTEND_LEXER_H

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Token.h"

#include <string_view>
#include <vector>

namespace kiln {

/// Splits Text into tokens. Bad characters are reported to Diags and become
/// one Unknown token per run; malformed numbers are reported and kept (value
/// 0). The result always ends with one Eof token, located just past the last
/// token of the buffer. Token::Text points into Text, which must outlive the
/// tokens.
std::vector<Token> lex(std::string_view Text, DiagnosticEngine &Diags);

} // namespace kiln

#endif // KILN_FRONTEND_LEXER_H
