// The per-packet marking decision of one TX queue: the profile's probability for the queue's
// depth, turned into a 32-bit threshold once per burst, then one random draw and one compare per
// packet. Deterministic for a seed (SplitMix64), so simulations and tests repeat. Below kmin and
// above kmax no random number is drawn at all.
//
//   EcnMarker marker(profile, seed);
//   marker.begin_burst(depth_descriptors);          // from the TX queue probe
//   for (frame : burst) if (marker.decide()) count(mark_ce(frame));
//
// The decision is independent of the frame, so among ECT frames the marked fraction is p(depth);
// a chosen Not-ECT frame is left alone (mark_ce says not_ect), never dropped: braid marks, it does
// not run WRED.
#pragma once

#include <cstdint>

#include "common/split_mix64.hpp"
#include "ecn/ecn_profile.hpp"

namespace braid::ecn {

class EcnMarker {
 public:
  // `profile` must be valid (profile_error empty).
  EcnMarker(const EcnProfile& profile, std::uint64_t seed) : profile_(profile), random_(seed) {}

  void begin_burst(std::uint32_t depth_descriptors) {
    threshold_ = mark_threshold(profile_, depth_descriptors);
  }

  // Whether to mark the next packet of the burst.
  bool decide() {
    if (threshold_ == 0) return false;
    if (threshold_ == kAlwaysMark) return true;
    return random_() < threshold_;
  }

  std::uint64_t threshold() const { return threshold_; }
  const EcnProfile& profile() const { return profile_; }

 private:
  EcnProfile profile_;
  SplitMix64 random_;
  std::uint64_t threshold_ = 0;
};

}  // namespace braid::ecn
