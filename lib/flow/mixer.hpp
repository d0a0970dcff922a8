// The field combiner behind every software hash policy except Toeplitz: a multiply-xorshift
// accumulator over 64-bit words, finished with the MurmurHash3 64-bit finaliser (fmix64).
// Chosen over CRC32C because it needs no ISA extension (the fuzz build and non-x86 targets run
// the same code), costs a multiply per word, and every output bit depends on every input bit,
// so any slice of the result (low or high bits) indexes a bucket table uniformly; the unit tests
// check that with a chi-square test over 256 buckets.
#pragma once

#include <cstdint>

namespace braid::flow {

inline constexpr std::uint64_t kFlowHashSeed = 0x62726169642d6677ULL;  // "braid-fw"

class Mixer {
 public:
  explicit constexpr Mixer(std::uint64_t seed) : state_(seed) {}

  constexpr void add(std::uint64_t word) {
    state_ = (state_ ^ word) * kStepMultiplier;
    state_ ^= state_ >> 32;
  }

  constexpr std::uint32_t finish() const {
    std::uint64_t h = state_;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return static_cast<std::uint32_t>(h);
  }

 private:
  // 2^64 / golden ratio, odd: a multiplication by it is a bijection that spreads low bits up.
  static constexpr std::uint64_t kStepMultiplier = 0x9E3779B97F4A7C15ULL;

  std::uint64_t state_;
};

}  // namespace braid::flow
