// Whether a packet a worker distributed to a member has certainly left the member's queue, from
// the member's own counters rather than a guess at its rate. Once per control period the
// scheduler records each member's queue depth, its cumulative sent count, and the time up to
// which that depth counts everything the workers distributed (MemberInput::counted_ns: a worker
// measures at its drain tick, and one that was descheduled may still hold packets it distributed
// long ago). A packet distributed at time t had ahead of it at most what was queued at the first
// record counted at or after t (anything that reached the queue later is behind it: queues are
// FIFO); so it has left once the member has sent that many packets since that record. Exact
// whatever the member or the workers did meanwhile: paused, drained faster or slower than last
// period, emptied because load moved away, or stalled.
//
// Pure: no DPDK, time injected.
#pragma once

#include <cstdint>
#include <deque>

namespace braid::sched {

class QueueHistory {
 public:
  // Records kept: at one per 10 ms period, the last 1.28 s. A packet older than every record is
  // judged by the oldest, which is only more cautious.
  static constexpr std::size_t kRecords = 128;

  // `counted_ns`: everything distributed before it is in `depth` or sent (<= now).
  void record(std::uint64_t counted_ns, std::uint64_t sent, std::uint32_t depth);
  // Forgets everything (the member's depth or sent count became unknown).
  void clear() { records_.clear(); }
  bool empty() const { return records_.empty(); }

  // Whether a packet distributed at `distributed_ns` has left, given the member's sent count
  // now. False when no record counts it yet.
  bool left(std::uint64_t distributed_ns, std::uint64_t sent_now) const;

 private:
  struct Record {
    std::uint64_t counted_ns;
    std::uint64_t sent;
    std::uint32_t depth;
  };
  std::deque<Record> records_;
};

}  // namespace braid::sched
