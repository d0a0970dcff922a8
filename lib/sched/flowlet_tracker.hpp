// Flowlets: a bucket that has been idle for longer than the gap may move to another member
// without reordering any of its flows, because whatever it sent last has left the old member's
// queues before its next packet can arrive on the new one. The gap must therefore exceed the
// worst difference in delay between two members' paths (TX buffer drain + NIC queue + fabric);
// doc/scheduler.md derives the default. A busy bucket never moves.
//
// The tracker keeps, per bucket, the newest activity the workers reported (the control thread
// takes the latest "last seen" over workers and sums their packet counts) and a smoothed load
// (packets per control period) that load-aware policies balance.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace braid::sched {

// 500 us: the bond's default TX drain (100 us) plus a full 1024-descriptor TX queue of 1500-byte
// frames at 40 Gbit/s (~310 us) plus fabric skew between two ToR paths (~90 us). A gap shorter
// than the path delay skew can reorder; a longer one only finds fewer flowlets.
inline constexpr std::uint64_t kDefaultFlowletGapNs = 500'000;

struct BucketActivity {
  std::uint64_t last_seen_ns = 0;  // 0: never seen
  std::uint64_t packets = 0;       // cumulative, all workers
};

class FlowletTracker {
 public:
  FlowletTracker(std::uint32_t buckets, std::uint64_t gap_ns);

  // One control period's observation. `smoothing_permille`: weight of the new period in the
  // load average (1000 = only the last period).
  void update(std::span<const BucketActivity> activity, std::uint32_t smoothing_permille);
  // Between periods: only when buckets were last seen (the load is per period).
  void touch(std::span<const BucketActivity> activity);

  // Idle for longer than the gap (or never seen) at `now_ns`. `extra_ns`: time the bucket's
  // last packet may still wait in its member's queue (a deep queue widens the gap).
  bool movable(std::uint32_t bucket, std::uint64_t now_ns, std::uint64_t extra_ns = 0) const {
    const std::uint64_t last = last_seen_ns_[bucket];
    return last == 0 || (now_ns > last && now_ns - last > gap_ns_ + extra_ns);
  }
  std::vector<bool> movable_mask(std::uint64_t now_ns) const;
  // When each bucket last carried a packet; 0: never.
  std::uint64_t last_seen_ns(std::uint32_t bucket) const { return last_seen_ns_[bucket]; }
  std::span<const std::uint64_t> last_seen_ns() const { return last_seen_ns_; }

  std::span<const double> load() const { return load_; }
  std::uint64_t gap_ns() const { return gap_ns_; }
  void set_gap_ns(std::uint64_t gap_ns) { gap_ns_ = gap_ns; }
  std::uint32_t buckets() const { return static_cast<std::uint32_t>(last_seen_ns_.size()); }

  void count_moves(std::uint32_t moved) { moves_ += moved; }
  std::uint64_t moves() const { return moves_; }

 private:
  std::uint64_t gap_ns_;
  std::vector<std::uint64_t> last_seen_ns_;
  std::vector<std::uint64_t> packets_;
  std::vector<double> load_;
  bool primed_ = false;
  std::uint64_t moves_ = 0;
};

}  // namespace braid::sched
