#include "sched/queue_history.hpp"

#include <algorithm>

namespace braid::sched {

void QueueHistory::record(std::uint64_t counted_ns, std::uint64_t sent, std::uint32_t depth) {
  // A counter that went backwards (a port reset) voids what was recorded against it.
  if (!records_.empty() && sent < records_.back().sent) records_.clear();
  // Kept in order for the search (a worker's drain tick never goes back either).
  if (!records_.empty()) counted_ns = std::max(counted_ns, records_.back().counted_ns);
  records_.push_back({counted_ns, sent, depth});
  if (records_.size() > kRecords) records_.pop_front();
}

bool QueueHistory::left(std::uint64_t distributed_ns, std::uint64_t sent_now) const {
  const auto first = std::lower_bound(
      records_.begin(), records_.end(), distributed_ns,
      [](const Record& record, std::uint64_t time_ns) { return record.counted_ns < time_ns; });
  if (first == records_.end()) return false;
  return sent_now >= first->sent && sent_now - first->sent >= first->depth;
}

}  // namespace braid::sched
