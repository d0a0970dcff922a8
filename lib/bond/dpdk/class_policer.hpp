// One worker's meters for its bond's traffic classes (DPDK rte_meter, single-rate three-colour
// markers, colour-blind; anything not green is dropped): per class, its part of the class's rate
// cap in bytes (committed burst: rate_cap.burst_kb); per class and member, the share limit the
// bond's scheduler set for a class that gives way on a short member, in packets (each packet
// one "byte"). The worker re-reads the limits when their version moves; a meter whose rate
// changes keeps the tokens it has, so limits that move from period to period do not hand out a
// fresh burst each time.
#pragma once

#include <rte_cycles.h>
#include <rte_meter.h>

#include <array>
#include <cstdint>

#include "bond/dpdk/class_hits.hpp"

namespace braid::bond {

class ClassPolicer {
 public:
  // Takes the newest limits when they changed.
  void refresh(const ClassLimits& limits, std::uint16_t members,
               const std::array<std::uint32_t, classify::kMaxClasses>& cap_burst_bytes) {
    const std::uint32_t version = limits.version.load(std::memory_order_acquire);
    if (version == version_) return;
    version_ = version;
    for (std::size_t c = 0; c < classify::kMaxClasses; ++c) {
      const std::uint64_t cap = limits.cap_bytes_per_s[c].load(std::memory_order_relaxed);
      caps_[c].set(cap, cap_burst_bytes[c]);
      for (std::uint16_t m = 0; m < members; ++m) {
        const std::uint32_t pps = limits.share_pps[c][m].load(std::memory_order_relaxed);
        // A share limit's burst: 5 ms of its rate, at least 8 packets.
        shares_[c][m].set(pps == kNoShareLimit ? 0 : std::max<std::uint64_t>(pps, 1),
                          std::max<std::uint32_t>(8, pps / 200));
      }
    }
  }

  bool capped(std::size_t class_id) const { return caps_[class_id].on(); }
  bool share_limited(std::size_t class_id, std::size_t member) const {
    return shares_[class_id][member].on();
  }
  // Whether a packet of `bytes` fits the class's cap now (`tsc`: rte_rdtsc, once per burst).
  bool within_cap(std::size_t class_id, std::uint64_t tsc, std::uint32_t bytes) {
    return caps_[class_id].admit(tsc, bytes);
  }
  bool within_share(std::size_t class_id, std::size_t member, std::uint64_t tsc) {
    return shares_[class_id][member].admit(tsc, 1);
  }

 private:
  class Meter {
   public:
    // `rate` 0: off. A new rate changes the profile alone: the bucket keeps the tokens it has
    // (rte_meter_srtcm_config would refill it to the burst, a free burst every time a worker's
    // part of a limit moves).
    void set(std::uint64_t rate, std::uint32_t burst) {
      if (rate == rate_ && burst == burst_) return;
      if (rate == 0) {
        rate_ = 0;
        return;
      }
      rte_meter_srtcm_params params{};
      params.cir = rate;
      params.cbs = burst;
      params.ebs = 0;  // green or red: no yellow band
      if (rte_meter_srtcm_profile_config(&profile_, &params) != 0) {
        rate_ = 0;  // cannot happen with a rate and a burst; then no limit rather than a crash
        return;
      }
      // Off until now: a full bucket from here.
      if (rate_ == 0 && rte_meter_srtcm_config(&meter_, &profile_) != 0) return;
      rate_ = rate;
      burst_ = burst;
    }
    bool on() const { return rate_ != 0; }
    bool admit(std::uint64_t tsc, std::uint32_t length) {
      return rte_meter_srtcm_color_blind_check(&meter_, &profile_, tsc, length) == RTE_COLOR_GREEN;
    }

   private:
    std::uint64_t rate_ = 0;
    std::uint32_t burst_ = 0;
    rte_meter_srtcm_profile profile_{};
    rte_meter_srtcm meter_{};
  };

  std::uint32_t version_ = 0;
  std::array<Meter, classify::kMaxClasses> caps_;
  std::array<std::array<Meter, kMaxMembers>, classify::kMaxClasses> shares_;
};

}  // namespace braid::bond
