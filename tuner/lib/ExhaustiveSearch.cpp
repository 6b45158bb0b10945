//===- ExhaustiveSearch.cpp - Every point, best predicted first -----------===//
//
// Measures the space in the prior's order (cheapest predicted first, ties by
// index) when there is a prior, else in index order, in batches, until the
// budget or the space runs out.
//
//===----------------------------------------------------------------------===//
#include "SearchRun.h"

#include <algorithm>
#include <numeric>

namespace kiln::tuner {

void runExhaustive(SearchRun &Run) {
  std::vector<size_t> Order(Run.space().size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  const std::vector<double> &Prior = Run.options().Prior;
  if (!Prior.empty())
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t A, size_t B) { return Prior[A] < Prior[B]; });
  for (size_t At = 0; At < Order.size() && !Run.done(); At += kBatchSize) {
    size_t End = std::min(Order.size(), At + kBatchSize);
    Run.evaluate(std::vector<size_t>(Order.begin() + At, Order.begin() + End));
  }
}

} // namespace kiln::tuner
