//===- ShapeArg.cpp - The --shape option of run, bundle and tune ----------===//
#include "ShapeArg.h"

#include "CommandLine.h"

#include "kiln/Runtime/LaunchPlan.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace kiln::cli {

GemmSize parseShapeArg(const std::string &Text, const OpModel &Op,
                       bool AllowEmptyK) {
  const std::string Syms[3] = {Op.MSym, Op.NSym, Op.KSym};
  const std::string Expected =
      Syms[0] + "=..," + Syms[1] + "=..," + Syms[2] + "=..";
  int64_t Values[3] = {-1, -1, -1};
  std::stringstream SS(Text);
  std::string Part;
  while (std::getline(SS, Part, ',')) {
    size_t Eq = Part.find('=');
    if (Eq == std::string::npos)
      throw UsageError("--shape " + Text + ": expected " + Expected);
    std::string Name = Part.substr(0, Eq), Value = Part.substr(Eq + 1);
    int Which = -1;
    for (int I = 0; I < 3; ++I)
      if (Name == Syms[I])
        Which = I;
    if (Which < 0)
      throw UsageError("--shape: unknown size '" + Name + "' (op '" + Op.Name +
                       "' has " + Syms[0] + ", " + Syms[1] + ", " + Syms[2] +
                       ")");
    if (Values[Which] != -1)
      throw UsageError("--shape: " + Name + " given twice");
    char *End = nullptr;
    errno = 0;
    long long V = std::strtoll(Value.c_str(), &End, 10);
    const bool Empty = V == 0 && Which == 2 && AllowEmptyK;
    if (!Value.empty() && !*End && errno == ERANGE && V > 0)
      throw UsageError("--shape: " + Name + "=" + Value +
                       ": too large (every size must be below 2^31)");
    if (Value.empty() || *End || errno == ERANGE || (V <= 0 && !Empty))
      throw UsageError(
          "--shape: " + Name + "=" + Value +
          (Which == 2 && AllowEmptyK
               ? ": sizes must be positive integers (" + Name + " may be 0)"
               : std::string(": sizes must be positive integers")));
    Values[Which] = V;
  }
  for (int I = 0; I < 3; ++I)
    if (Values[I] == -1)
      throw UsageError("--shape: missing " + Syms[I] + " (expected " +
                       Expected + ")");
  GemmSize S{Values[0], Values[1], Values[2]};
  // The same rule as every other entry point (kiln/Runtime/LaunchPlan.h).
  if (std::optional<SizeProblem> P =
          checkProblemSize(Op.Params[Op.A].Type, S.M, S.N, S.K))
    throw UsageError("--shape " + Text + ": " + P->Message);
  return S;
}

} // namespace kiln::cli
