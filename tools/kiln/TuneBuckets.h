//===- TuneBuckets.h - kiln tune --buckets SYM=LO..HI ------------*- C++
//-*-===//
//
// A deployment's token counts as tuning buckets: `--buckets M=128..16384`
// tunes the powers of two from LO up to HI (LO, 2 LO, 4 LO, ... <= HI; at
// most 32) of one size, each as its own `kiln tune --shape ...,M=B` run, so
// the tuning cache holds one entry per bucket and a lookup at any count
// takes the nearest bucket (docs/TUNING.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_TUNEBUCKETS_H
#define KILN_TOOLS_KILN_TUNEBUCKETS_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::cli {

struct Buckets {
  std::string Sym;
  std::vector<int64_t> Values;
};

/// Parses SYM=LO..HI; throws UsageError naming what is wrong.
Buckets parseBuckets(const std::string &Text);

/// Shape (a --shape text without Sym) with Sym=Value appended.
std::string bucketShape(const std::string &Shape, const std::string &Sym,
                        int64_t Value);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_TUNEBUCKETS_H
