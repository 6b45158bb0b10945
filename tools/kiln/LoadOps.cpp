//===- LoadOps.cpp - Read, parse and check a .kiln file -------------------===//
#include "LoadOps.h"

#include "CommandLine.h"
#include "Json.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Parser.h"
#include "kiln/Frontend/Sema.h"
#include "kiln/Target/Attention/AttentionPlan.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace kiln::cli {

namespace {

/// The text of Path; "-" is standard input.
std::string readInput(const std::string &Path) {
  std::ostringstream Text;
  if (Path == "-") {
    Text << std::cin.rdbuf();
    return Text.str();
  }
  struct stat Info;
  if (stat(Path.c_str(), &Info) != 0)
    throw InputError("cannot read '" + Path + "': " + std::strerror(errno));
  if (S_ISDIR(Info.st_mode))
    throw InputError("cannot read '" + Path + "': it is a directory");
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw InputError("cannot read '" + Path + "': " + std::strerror(errno));
  Text << In.rdbuf();
  return Text.str();
}

const char *severityText(DiagSeverity S) {
  return S == DiagSeverity::Error     ? "error"
         : S == DiagSeverity::Warning ? "warning"
                                      : "note";
}

/// With --json: the diagnostics as {"error": {"kind": "diagnostics", ...}}.
void printJsonDiagnostics(const DiagnosticEngine &Diags) {
  std::cout << "{\"error\": {\"kind\": \"diagnostics\", \"message\": "
            << jsonString(std::to_string(Diags.errorCount()) +
                          (Diags.errorCount() == 1 ? " error" : " errors"))
            << ", \"diagnostics\": [";
  bool First = true;
  for (const Diagnostic &D : Diags.diagnostics()) {
    std::cout << (First ? "" : ", ")
              << "{\"file\": " << jsonString(std::string(Diags.fileName(D)))
              << ", \"line\": " << D.Loc.Line << ", \"column\": " << D.Loc.Col
              << ", \"severity\": \"" << severityText(D.Severity)
              << "\", \"message\": " << jsonString(D.Message) << "}";
    First = false;
  }
  std::cout << "]}}\n";
}

} // namespace

std::optional<LoadedFile> loadFile(const std::string &Path) {
  LoadedFile File{
      Path == "-" ? "<stdin>" : Path, readInput(Path), nullptr, {}, {}};
  DiagnosticEngine Diags;
  Diags.setSource(File.Path, File.Text);
  std::unique_ptr<Module> AST = parseModule(File.Path, File.Text, Diags);
  if (AST) { // Sema skips ops with syntax errors and checks the others.
    File.Ops = analyze(*AST, Diags);
    File.Layers = analyzeLayers(*AST, File.Ops, Diags);
  }
  File.AST = std::move(AST);
  Diags.printAll(std::cerr);
  if (Diags.hasErrors()) {
    if (jsonErrors())
      printJsonDiagnostics(Diags);
    return std::nullopt;
  }
  return File;
}

std::vector<const OpModel *> selectOps(const LoadedFile &File,
                                       const std::optional<std::string> &Name,
                                       bool RequireOne) {
  std::vector<const OpModel *> Out;
  for (const OpModel &Op : File.Ops)
    if (!Name || Op.Name == *Name)
      Out.push_back(&Op);
  std::string Names;
  for (const OpModel &Op : File.Ops)
    Names += (Names.empty() ? "" : ", ") + Op.Name;
  if (Out.empty())
    throw UsageError(Name ? "no op named '" + *Name + "' in " + File.Path +
                                " (it has: " + Names + ")"
                          : File.Path + " defines no op");
  if (RequireOne && Out.size() > 1)
    throw UsageError(File.Path + " defines several ops (" + Names +
                     "); choose one with --op");
  return Out;
}

void requireKernel(const LoadedFile &File, const OpModel &Op, Arch Target) {
  if (Op.Family != OpFamily::Attention)
    return;
  if (std::string Why =
          attentionKernelProblem(Op.Params[size_t(Op.A)].Type, Target);
      !Why.empty())
    throw InputError(File.Path + ":" + std::to_string(Op.Loc.Line) + ":" +
                     std::to_string(Op.Loc.Col) + ": op '" + Op.Name +
                     "': " + Why);
}

Arch requireArch(const std::optional<std::string> &Name) {
  if (!Name)
    throw UsageError("--arch is required (one of " + std::string(archList()) +
                     ")");
  std::optional<Arch> A = parseArch(*Name);
  if (!A)
    throw UsageError("unknown target '" + *Name + "' (expected one of " +
                     std::string(archList()) + ")");
  return *A;
}

} // namespace kiln::cli
