//===- Frontend.h - The DSL front end in one call ---------------*- C++ -*-===//
//
// The entry point the CLI and the runtime use: .kiln text in, checked
// kiln::OpModel out. The stages are also available on their own:
// parseModule (Parser.h) builds the AST, printAST (AST.h) shows it, and
// analyze (Sema.h) checks it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_FRONTEND_H
#define KILN_FRONTEND_FRONTEND_H

#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/OpModel.h"
#include "kiln/Frontend/Parser.h"
#include "kiln/Frontend/Sema.h"

#include <string_view>
#include <vector>

namespace kiln {

/// Parses and checks the ops in Text (named FileName in messages). Returns
/// every op's model when the file is error-free, and an empty vector as soon
/// as any error was reported (all of them are in Diags). Warnings do not
/// make it fail.
std::vector<OpModel> loadOps(std::string_view FileName, std::string_view Text,
                             DiagnosticEngine &Diags);

} // namespace kiln

#endif // KILN_FRONTEND_FRONTEND_H
