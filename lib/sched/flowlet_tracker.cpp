#include "sched/flowlet_tracker.hpp"

#include <algorithm>

namespace braid::sched {

FlowletTracker::FlowletTracker(std::uint32_t buckets, std::uint64_t gap_ns)
    : gap_ns_(gap_ns), last_seen_ns_(buckets, 0), packets_(buckets, 0), load_(buckets, 0.0) {}

void FlowletTracker::update(std::span<const BucketActivity> activity,
                            std::uint32_t smoothing_permille) {
  const double alpha = std::clamp(smoothing_permille, 1u, 1000u) / 1000.0;
  const std::size_t n = std::min(activity.size(), last_seen_ns_.size());
  for (std::size_t b = 0; b < n; ++b) {
    last_seen_ns_[b] = std::max(last_seen_ns_[b], activity[b].last_seen_ns);
    // The first observation only sets the baseline: counts from before the scheduler started
    // are not one period's load.
    const double delta = primed_ ? static_cast<double>(activity[b].packets - packets_[b]) : 0.0;
    packets_[b] = activity[b].packets;
    load_[b] += alpha * (delta - load_[b]);
  }
  primed_ = true;
}

void FlowletTracker::touch(std::span<const BucketActivity> activity) {
  const std::size_t n = std::min(activity.size(), last_seen_ns_.size());
  for (std::size_t b = 0; b < n; ++b)
    last_seen_ns_[b] = std::max(last_seen_ns_[b], activity[b].last_seen_ns);
}

std::vector<bool> FlowletTracker::movable_mask(std::uint64_t now_ns) const {
  std::vector<bool> mask(last_seen_ns_.size());
  for (std::uint32_t b = 0; b < mask.size(); ++b)
    mask[b] = movable(b, now_ns);
  return mask;
}

}  // namespace braid::sched
