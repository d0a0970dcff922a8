// Link-flap dampening of one member: the RFC 2439 scheme (BGP route flap damping, 4.2) applied to
// a link the way routers apply it to interfaces (Cisco IP event dampening, Junos damping).
//
//   - A flap is a down transition of the member's link: carrier or BFD going down, after
//     down_delay (link_delay.hpp). The down is what moves traffic; the up that follows adds
//     nothing, so one bounce is one flap. A glitch shorter than down_delay is not a flap.
//   - Each flap adds penalty_per_flap; the penalty decays exponentially with half_life_ns:
//       penalty(t) = penalty(t0) * 2^(-(t - t0) / half_life)
//   - A flap that lifts the penalty above suppress_threshold suppresses the member. Flaps while
//     suppressed still add penalty; the member is reused when the penalty has decayed to
//     reuse_threshold.
//   - The penalty never exceeds ceiling = reuse_threshold * 2^(max_suppress / half_life)
//     (RFC 2439 4.2), so a member is reused at most max_suppress_ns after its last flap.
//
// Defaults: half-life 30 s, 1000 per flap, suppress above 2000, reuse at 750, max suppress 120 s
// (4 half-lives, Cisco's ratio) so the ceiling is 12000. Penalty just after the k-th flap of a
// link flapping every T seconds, 1000 * (1 - a^k) / (1 - a) with a = 2^(-T / 30 s):
//
//     T      k=1    k=2    k=3    k=4     suppressed by   reused (no more flaps)
//     2 s   1000   1955   2867   3737     3rd flap        58.0 s after it
//     5 s   1000   1891   2685   3392     3rd flap        55.2 s after it
//    10 s   1000   1794   2424   2924     3rd flap        50.8 s after it
//    20 s   1000   1630   2027   2277     3rd flap        43.0 s after it
//    25 s   1000   1561   1876   2053     4th flap
//    30 s   1000   1500   1750   1875     never (the penalty tends to 2000)
//
// One flap never suppresses (1000), nor do two even back to back (2000 is not above 2000); the
// third does whenever the flaps are at most 20.8 s apart (1 + a + a^2 > 2): the incident of a
// link flapping several times a minute is contained at its third flap. A link that keeps
// flapping reaches the ceiling and is reused 120 s after its last flap.
#pragma once

#include <cstdint>
#include <string>

#include "health/signal.hpp"

namespace braid::health {

struct DampeningSettings {
  std::uint32_t penalty_per_flap = 1000;  // 0 turns dampening off
  std::uint32_t suppress_threshold = 2000;
  std::uint32_t reuse_threshold = 750;
  std::uint64_t half_life_ns = 30 * kNsPerSecond;
  std::uint64_t max_suppress_ns = 120 * kNsPerSecond;
};

// An empty string when the settings are consistent, else what is wrong with them.
std::string settings_error(const DampeningSettings& settings);

class FlapDampening {
 public:
  explicit FlapDampening(const DampeningSettings& settings);

  // A flap at now_ns; true when it suppressed a member that was not suppressed.
  bool on_flap(std::uint64_t now_ns);
  double penalty(std::uint64_t now_ns) const;
  bool suppressed(std::uint64_t now_ns) const { return now_ns < reuse_at_ns_; }
  // When the member is reused if it flaps no more: now_ns when it is not suppressed.
  std::uint64_t reuse_at(std::uint64_t now_ns) const {
    return suppressed(now_ns) ? reuse_at_ns_ : now_ns;
  }
  double ceiling() const { return ceiling_; }
  std::uint64_t flaps() const { return flaps_; }
  const DampeningSettings& settings() const { return settings_; }

 private:
  // How long `penalty` takes to decay to the reuse threshold.
  std::uint64_t decay_to_reuse_ns(double penalty) const;

  DampeningSettings settings_;
  double ceiling_;
  double penalty_ = 0;  // at stamp_ns_
  std::uint64_t stamp_ns_ = 0;
  std::uint64_t reuse_at_ns_ = 0;  // suppressed while now < reuse_at_ns_
  std::uint64_t flaps_ = 0;
};

}  // namespace braid::health
