//===- Rng.h - The emulator's seeded random choices -------------*- C++ -*-===//
//
// splitmix64: small, fast and fully determined by its seed, so that every
// hostile choice the emulator makes (thread order, when async copies land)
// is reproduced by the same seed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_RNG_H
#define KILN_EMU_RNG_H

#include <cstdint>

namespace kiln::emu {

class Rng {
public:
  explicit Rng(uint64_t Seed = 0) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9E3779B97F4A7C15ull);
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, N), N > 0.
  uint64_t below(uint64_t N) { return next() % N; }
  /// True with probability 1/N.
  bool oneIn(uint64_t N) { return below(N) == 0; }

private:
  uint64_t State;
};

/// A seed derived from two values (a launch's seed from the base seed and
/// the launch number, a cluster's from the launch seed and its index).
inline uint64_t mixSeed(uint64_t A, uint64_t B) {
  Rng R(A ^ (B * 0xD1B54A32D192ED03ull));
  return R.next();
}

} // namespace kiln::emu

#endif // KILN_EMU_RNG_H
