//===- TuneBuckets.cpp - kiln tune --buckets SYM=LO..HI -------------------===//
#include "TuneBuckets.h"

#include "CommandLine.h"

#include <cerrno>
#include <cstdlib>

namespace kiln::cli {

namespace {

bool positive(const std::string &Text, int64_t &Out) {
  if (Text.empty() || Text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  errno = 0;
  char *End = nullptr;
  long long V = std::strtoll(Text.c_str(), &End, 10);
  if (errno || *End || V < 1)
    return false;
  Out = V;
  return true;
}

} // namespace

Buckets parseBuckets(const std::string &Text) {
  const std::string Want = "expected SYM=LO..HI, e.g. M=128..16384 (the "
                           "powers of two from LO up to HI)";
  size_t Eq = Text.find('='), Dots = Text.find("..");
  if (Eq == std::string::npos || Eq == 0 || Dots == std::string::npos ||
      Dots < Eq)
    throw UsageError("--buckets " + Text + ": " + Want);
  Buckets B;
  B.Sym = Text.substr(0, Eq);
  int64_t Lo = 0, Hi = 0;
  if (!positive(Text.substr(Eq + 1, Dots - Eq - 1), Lo) ||
      !positive(Text.substr(Dots + 2), Hi))
    throw UsageError("--buckets " + Text +
                     ": LO and HI must be positive "
                     "integers; " +
                     Want);
  if (Hi < Lo)
    throw UsageError("--buckets " + Text + ": HI is below LO");
  for (int64_t V = Lo; V <= Hi; V *= 2) {
    B.Values.push_back(V);
    if (B.Values.size() > 32)
      throw UsageError("--buckets " + Text +
                       ": more than 32 buckets; narrow the range");
    if (V > Hi / 2)
      break;
  }
  return B;
}

std::string bucketShape(const std::string &Shape, const std::string &Sym,
                        int64_t Value) {
  return Shape + (Shape.empty() ? "" : ",") + Sym + "=" + std::to_string(Value);
}

} // namespace kiln::cli
