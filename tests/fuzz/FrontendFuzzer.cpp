//===- FrontendFuzzer.cpp - .kiln text through the lexer, parser and sema -===//
//
// What `kiln check` does with a file: parse, check every op (including the
// tune block's space), render every diagnostic with its source line, and,
// for a file without errors, print the AST and enumerate each op's valid
// configurations on every target.
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Parser.h"
#include "kiln/Frontend/Sema.h"
#include "kiln/Target/TuningSpace.h"

#include <cstdint>
#include <sstream>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  kiln::DiagnosticEngine Diags;
  std::unique_ptr<kiln::Module> AST =
      kiln::parseModule("fuzz.kiln", Text, Diags);
  std::vector<kiln::OpModel> Ops;
  if (AST)
    Ops = kiln::analyze(*AST, Diags);
  std::ostringstream Out;
  Diags.printAll(Out);
  if (!AST || Diags.hasErrors())
    return 0;
  kiln::printAST(*AST, Out);
  for (const kiln::OpModel &Op : Ops)
    for (kiln::Arch T : kiln::allArchs()) {
      kiln::validConfigs(Op, T);
      kiln::defaultConfig(Op, T);
    }
  return 0;
}
