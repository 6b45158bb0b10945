//===- Frontend.cpp - The DSL front end in one call -----------------------===//
#include "kiln/Frontend/Frontend.h"

namespace kiln {

std::vector<OpModel> loadOps(std::string_view FileName, std::string_view Text,
                             DiagnosticEngine &Diags) {
  unsigned ErrorsBefore = Diags.errorCount();
  std::unique_ptr<Module> M = parseModule(FileName, Text, Diags);
  std::vector<OpModel> Models = analyze(*M, Diags);
  if (Diags.errorCount() != ErrorsBefore)
    Models.clear();
  return Models;
}

} // namespace kiln
