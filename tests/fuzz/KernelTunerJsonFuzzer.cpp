//===- KernelTunerJsonFuzzer.cpp - Kernel Tuner cache files, gzip or not --===//
//
// ReplayEvaluator::load as `kiln tune --replay FILE` calls it: the bytes are
// inflated when they start with the gzip magic, then read as a Kernel Tuner
// cache. The only failure it may report is std::runtime_error. A file it
// accepts is then used as the tuner uses it: every point evaluated and
// described, the optimum's neighbours listed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/ReplayEvaluator.h"

#include "FuzzFile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

using namespace kiln::tuner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::optional<ReplayEvaluator> R;
  try {
    R = ReplayEvaluator::load(kiln::fuzz::asFile(Data, Size));
  } catch (const std::runtime_error &) {
    return 0;
  }
  std::vector<size_t> All(R->space().size() + 1); // one past the end too
  std::iota(All.begin(), All.end(), 0);
  std::vector<Measurement> M = R->evaluate(All);
  if (M.size() != All.size() || M.back().Valid) {
    std::fprintf(stderr, "kiln fuzz: evaluate answered wrongly\n");
    std::abort();
  }
  for (size_t I = 0; I < R->space().size(); ++I)
    R->describe(I);
  if (std::optional<size_t> Best = R->optimum()) {
    if (!M[*Best].Valid || M[*Best].Seconds != R->optimumSeconds()) {
      std::fprintf(stderr, "kiln fuzz: the optimum is not a valid answer\n");
      std::abort();
    }
    R->space().neighbors(*Best);
  }
  return 0;
}
