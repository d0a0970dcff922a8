// A small, fast, deterministic random source: SplitMix64 (Steele, Lea, Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014). Any seed works, zero included; one call is an add,
// two multiplies and three shifts. BFD's transmit jitter and the ECN marker draw from it, seeded
// per session or per queue, so a simulation that fixes the seeds repeats itself.
#pragma once

#include <cstdint>

namespace braid {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  // 32 random bits: the high half of the mixed state (its best-mixed bits).
  std::uint32_t operator()() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
  }

 private:
  std::uint64_t state_;
};

}  // namespace braid
