// The random source for the transmit jitter (RFC 5880 6.8.7). The session takes any callable
// returning 32 random bits; SplitMix64 (common/split_mix64.hpp) is what braid passes, seeded per
// session, and what the simulation seeds to make runs repeatable.
#pragma once

#include "common/split_mix64.hpp"

namespace braid::bfd {

using braid::SplitMix64;

}  // namespace braid::bfd
