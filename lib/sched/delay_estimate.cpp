#include "sched/delay_estimate.hpp"

#include <algorithm>
#include <cmath>

namespace braid::sched {

void DelayEstimate::update(std::optional<std::uint32_t> depth, std::uint64_t sent,
                           std::uint64_t elapsed_ns) {
  const bool was_queued = depth_.value_or(0) != 0;
  last_busy_ = elapsed_ns != 0 && was_queued && depth.value_or(0) != 0;
  if (!depth) {
    // Unknown now: the next known depth starts afresh (what was sent meanwhile says nothing).
    rate_per_ns_ = 0;
    last_rate_per_ns_ = 0;
  } else if (elapsed_ns != 0) {
    last_rate_per_ns_ = static_cast<double>(sent) / static_cast<double>(elapsed_ns);
    if (last_busy_) {
      rate_per_ns_ = rate_per_ns_ == 0
                         ? last_rate_per_ns_
                         : rate_per_ns_ + smoothing_ * (last_rate_per_ns_ - rate_per_ns_);
    }
  }
  depth_ = depth;
}

std::optional<std::uint64_t> DelayEstimate::delay_ns() const {
  if (!depth_) return std::nullopt;
  if (*depth_ == 0) return 0;
  double rate = last_busy_ ? std::min(rate_per_ns_, last_rate_per_ns_) : rate_per_ns_;
  // Never seen busy: what it sent last period is a lower bound on its rate.
  if (rate <= 0) rate = last_rate_per_ns_;
  if (rate <= 0) {
    // Packets waited a whole period and none left: stalled. A queue that only just filled
    // and has sent nothing yet cannot be judged.
    if (last_busy_) return kStalledDelayNs;
    return std::nullopt;
  }
  return std::min(kStalledDelayNs, static_cast<std::uint64_t>(std::round(*depth_ / rate)));
}

}  // namespace braid::sched
