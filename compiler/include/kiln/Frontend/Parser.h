//===- Parser.h - Building the AST of a .kiln file --------------*- C++ -*-===//
//
// A recursive-descent parser for the grammar in docs/DSL.md. Errors are
// reported to a DiagnosticEngine; the parser recovers at statement level
// (the next line, or the closing brace) so that one run reports several
// mistakes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_PARSER_H
#define KILN_FRONTEND_PARSER_H

#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/Diagnostics.h"

#include <memory>
#include <string_view>

namespace kiln {

/// Lexes and parses Text. Registers the buffer with Diags (setSource) so
/// diagnostics show source lines. Always returns a module; ops containing
/// syntax errors have OpDecl::HasSyntaxErrors set.
std::unique_ptr<Module> parseModule(std::string_view FileName,
                                    std::string_view Text,
                                    DiagnosticEngine &Diags);

/// Maximum nesting of parentheses/sub-expressions before the parser gives
/// up with an error (keeps recursion bounded on hostile input).
constexpr unsigned MaxExprDepth = 128;

/// Maximum height of an expression tree (Expr::Height). A long operator
/// chain (`x + 1 + 1 + ...`) is a tree as tall as the chain is long even
/// without parentheses; beyond this the parser stops with a located "too
/// large" error, well before any walk could exhaust a small thread stack.
constexpr unsigned MaxExprHeight = 256;

} // namespace kiln

#endif // KILN_FRONTEND_PARSER_H
