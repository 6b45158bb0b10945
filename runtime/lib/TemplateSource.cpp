//===- TemplateSource.cpp - Which templates the compiles use --------------===//
#include "kiln/Runtime/TemplateSource.h"

#include "kiln/Runtime/EmbeddedTemplates.h"
#include "kiln/Runtime/Sha256.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kiln {

namespace {

namespace fs = std::filesystem;

void hashFiles(Sha256 &H, const std::vector<TemplateFile> &Files) {
  for (const TemplateFile &F : Files) {
    for (const std::string *S : {&F.Path, &F.Contents}) {
      H.update(std::to_string(S->size()) + "\n");
      H.update(*S);
    }
  }
}

void finish(TemplateSet &S) {
  auto ByPath = [](const TemplateFile &A, const TemplateFile &B) {
    return A.Path < B.Path;
  };
  std::sort(S.Device.begin(), S.Device.end(), ByPath);
  std::sort(S.Emulator.begin(), S.Emulator.end(), ByPath);
  Sha256 D;
  hashFiles(D, S.Device);
  S.DeviceDigest = Sha256::hex(D.finish());
  Sha256 E;
  hashFiles(E, S.Device);
  E.update("emulator\n");
  hashFiles(E, S.Emulator);
  S.EmulatorDigest = Sha256::hex(E.finish());
}

/// Every regular file under Root/kiln whose name ends in one of Exts.
bool readTree(const fs::path &Root, std::initializer_list<const char *> Exts,
              std::vector<TemplateFile> &Out, std::string &Error) {
  std::error_code EC;
  fs::path Top = Root / "kiln";
  if (!fs::is_directory(Top, EC))
    return false;
  for (fs::recursive_directory_iterator It(Top, EC), End; !EC && It != End;
       It.increment(EC)) {
    if (!It->is_regular_file(EC))
      continue;
    std::string Name = It->path().filename().string();
    bool Wanted = false;
    for (const char *E : Exts)
      Wanted |=
          Name.size() > std::strlen(E) &&
          Name.compare(Name.size() - std::strlen(E), std::string::npos, E) == 0;
    if (!Wanted)
      continue;
    std::ifstream In(It->path(), std::ios::binary);
    std::ostringstream Text;
    Text << In.rdbuf();
    if (!In && !In.eof()) {
      Error = "cannot read '" + It->path().string() + "'";
      return false;
    }
    Out.push_back(
        {fs::relative(It->path(), Root, EC).generic_string(), Text.str()});
  }
  if (EC) {
    Error = "cannot list '" + Top.string() + "': " + EC.message();
    return false;
  }
  return true;
}

} // namespace

TemplateSet readTemplateDirectory(const std::string &Dir) {
  TemplateSet S;
  S.Origin = Dir;
  S.FromDirectory = true;
  std::string Error;
  if (!readTree(Dir, {".cuh"}, S.Device, Error) || S.Device.empty()) {
    S.Error = "KILN_TEMPLATE_DIR='" + Dir + "': " +
              (Error.empty() ? "no kiln/*.cuh headers under it (it should be "
                               "laid out like kiln's templates/ folder)"
                             : Error);
    S.Device.clear();
  } else if (!readTree(fs::path(Dir) / "emu", {".cuh", ".h"}, S.Emulator,
                       Error) &&
             !Error.empty()) {
    S.Error = "KILN_TEMPLATE_DIR='" + Dir + "': " + Error;
  }
  finish(S);
  return S;
}

const TemplateSet &activeTemplates() {
  static const TemplateSet Set = [] {
    const char *Dir = std::getenv("KILN_TEMPLATE_DIR");
    if (Dir && *Dir)
      return readTemplateDirectory(Dir);
    TemplateSet S;
    S.Origin = "embedded";
    for (const EmbeddedFile &F : embeddedTemplates())
      S.Device.push_back({F.Path, F.Contents});
    for (const EmbeddedFile &F : embeddedEmulatorTemplates())
      S.Emulator.push_back({F.Path, F.Contents});
    finish(S);
    return S;
  }();
  return Set;
}

} // namespace kiln
