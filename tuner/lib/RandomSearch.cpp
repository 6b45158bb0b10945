//===- RandomSearch.cpp - Uniform sampling without replacement ------------===//
//
// A seeded permutation of the space, measured in batches. The baseline every
// other strategy has to beat.
//
//===----------------------------------------------------------------------===//
#include "SearchRun.h"

#include <algorithm>
#include <numeric>

namespace kiln::tuner {

void runRandom(SearchRun &Run) {
  std::vector<size_t> Order(Run.space().size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  Run.rng().shuffle(Order);
  for (size_t At = 0; At < Order.size() && !Run.done(); At += kBatchSize) {
    size_t End = std::min(Order.size(), At + kBatchSize);
    Run.evaluate(std::vector<size_t>(Order.begin() + At, Order.begin() + End));
  }
}

} // namespace kiln::tuner
