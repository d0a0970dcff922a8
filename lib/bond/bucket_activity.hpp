// Per-bucket activity as one worker records it: when a bucket last carried a packet (a TSC
// stamp) and how many it carried. Each (worker, bond) has its own array, written only by that
// worker with relaxed load + store (no locked instruction, no line shared with another writer);
// the control thread reads every worker's array, takes the newest stamp and sums the counts to
// find flowlets (sched/flowlet_tracker.hpp). Pure: the TSC is passed in.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace braid::bond {

// Stamps are TSC >> 10 in 32 bits: about 0.4 us resolution at 2.5 GHz, wrapping after ~30 min.
// The scheduler reads a bucket's stamp only when that worker's count for it moved since its last
// reading (at most a period ago, sched/activity_counts.hpp), so a stamp it reads is never older
// than a period and the wrap never shows. (Read unconditionally, a stamp idle for 15-30 min would
// read as just now, half of every wrap, and the bucket would never move as idle.) The counts are
// 32-bit too and wrap; the scheduler differences each worker's own count, modulo 2^32.
inline constexpr unsigned kActivityStampShift = 10;

inline std::uint32_t activity_stamp(std::uint64_t tsc) {
  return static_cast<std::uint32_t>(tsc >> kActivityStampShift);
}

class BucketActivityArray {
 public:
  struct Slot {
    std::atomic<std::uint32_t> stamp{0};
    std::atomic<std::uint32_t> packets{0};
  };

  explicit BucketActivityArray(std::uint32_t buckets)
      : slots_(new Slot[buckets]), buckets_(buckets) {}

  // Worker side, per packet: two plain stores to one 8-byte slot.
  void record(std::uint32_t bucket, std::uint32_t stamp) {
    Slot& slot = slots_[bucket];
    slot.stamp.store(stamp, std::memory_order_relaxed);
    slot.packets.store(slot.packets.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Control side.
  std::uint32_t stamp(std::uint32_t bucket) const {
    return slots_[bucket].stamp.load(std::memory_order_relaxed);
  }
  std::uint32_t packets(std::uint32_t bucket) const {
    return slots_[bucket].packets.load(std::memory_order_relaxed);
  }
  std::uint32_t buckets() const { return buckets_; }

 private:
  std::unique_ptr<Slot[]> slots_;
  std::uint32_t buckets_;
};

}  // namespace braid::bond
