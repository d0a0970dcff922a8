// A carrier flap pattern for an emulated link: from `start_ns`, the carrier goes down for
// `down_ns` at the start of every `period_ns`, `count` times, then stays up. Pure (time is
// injected), so the schedule is unit-tested; link_flapper.hpp applies it to a port.
//
//   FlapPattern flaps{.period_ns = 1'000'000'000, .down_ns = 200'000'000, .count = 5};
//   flaps.carrier_up(start_ns, now_ns);   // false during each of the 5 down times
#pragma once

#include <cstdint>

namespace braid::linkemu {

struct FlapPattern {
  std::uint64_t period_ns = 2'000'000'000;
  std::uint64_t down_ns = 500'000'000;  // below period_ns, or the carrier never comes back
  std::uint32_t count = 1;

  // Flaps begun by `now_ns` (0 before the first, at most count).
  std::uint32_t flaps_begun(std::uint64_t start_ns, std::uint64_t now_ns) const {
    if (now_ns < start_ns || period_ns == 0) return 0;
    const std::uint64_t begun = (now_ns - start_ns) / period_ns + 1;
    return begun < count ? static_cast<std::uint32_t>(begun) : count;
  }
  bool carrier_up(std::uint64_t start_ns, std::uint64_t now_ns) const {
    const std::uint32_t begun = flaps_begun(start_ns, now_ns);
    if (begun == 0) return true;
    return now_ns - start_ns - std::uint64_t{begun - 1} * period_ns >= down_ns;
  }
  // When the carrier next changes after `now_ns`; UINT64_MAX once the pattern is over.
  std::uint64_t next_change_ns(std::uint64_t start_ns, std::uint64_t now_ns) const {
    if (count == 0) return UINT64_MAX;
    if (now_ns < start_ns) return start_ns;
    const std::uint32_t begun = flaps_begun(start_ns, now_ns);
    const std::uint64_t flap_start = start_ns + std::uint64_t{begun - 1} * period_ns;
    if (now_ns < flap_start + down_ns) return flap_start + down_ns;
    if (begun < count) return flap_start + period_ns;
    return UINT64_MAX;
  }
  // When the last flap's carrier comes back.
  std::uint64_t end_ns(std::uint64_t start_ns) const {
    return count == 0 ? start_ns : start_ns + std::uint64_t{count - 1} * period_ns + down_ns;
  }
};

}  // namespace braid::linkemu
