//===- LoadOps.cpp - Read, parse and check a .kiln file -------------------===//
#include "LoadOps.h"

#include "CommandLine.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Parser.h"
#include "kiln/Frontend/Sema.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace kiln::cli {

std::optional<LoadedFile> loadFile(const std::string &Path) {
  struct stat Info;
  if (stat(Path.c_str(), &Info) != 0)
    throw InputError("cannot read '" + Path + "': " + std::strerror(errno));
  if (S_ISDIR(Info.st_mode))
    throw InputError("cannot read '" + Path + "': it is a directory");
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw InputError("cannot read '" + Path + "': " + std::strerror(errno));
  std::ostringstream Text;
  Text << In.rdbuf();
  LoadedFile File{Path, Text.str(), nullptr, {}};
  DiagnosticEngine Diags;
  Diags.setSource(Path, File.Text);
  std::unique_ptr<Module> AST = parseModule(Path, File.Text, Diags);
  if (AST) // Sema skips ops with syntax errors and checks the others.
    File.Ops = analyze(*AST, Diags);
  File.AST = std::move(AST);
  Diags.printAll(std::cerr);
  if (Diags.hasErrors())
    return std::nullopt;
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
