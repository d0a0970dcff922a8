// A small deterministic random source for the transmit jitter (RFC 5880 6.8.7): SplitMix64.
// The session takes any callable returning 32 random bits; this one is what braid passes, seeded
// per session, and what the simulation seeds to make runs repeatable.
#pragma once

#include <cstdint>

namespace braid::bfd {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint32_t operator()() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
  }

 private:
  std::uint64_t state_;
};

}  // namespace braid::bfd
