// One worker's packets for its bond's held buckets (kHeldBucket in the table): a busy bucket the
// scheduler is moving (lib/sched/held_moves.hpp). They wait here in arrival order, with their
// slot in the table, until a table names the bucket's new member, and then leave first, on it.
// Owned by one worker: no locks. At most kHeldPacketsPerWorker; the worker drops what does not fit.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <memory>

#include "bond/bucket_assignment.hpp"

namespace braid::bond {

class BucketHold {
 public:
  BucketHold()
      : packets_(new rte_mbuf*[kHeldPacketsPerWorker]),
        slots_(new std::uint32_t[kHeldPacketsPerWorker]) {}

  // False: full; the packet stays the caller's.
  bool push(rte_mbuf* packet, std::uint32_t slot) {
    if (count_ == kHeldPacketsPerWorker) return false;
    packets_[count_] = packet;
    slots_[count_] = slot;
    ++count_;
    return true;
  }

  // Offers every held packet, oldest first, to `place(packet, slot)`; the ones it declines
  // (their bucket is still held) stay, still in order.
  template <typename Place>
  void release(Place&& place) {
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; i < count_; ++i) {
      if (place(packets_[i], slots_[i])) continue;
      packets_[kept] = packets_[i];
      slots_[kept] = slots_[i];
      ++kept;
    }
    count_ = kept;
  }

  // Frees everything held (the worker stops); returns how many.
  std::uint32_t free_all() {
    const std::uint32_t freed = count_;
    for (std::uint32_t i = 0; i < count_; ++i)
      rte_pktmbuf_free(packets_[i]);
    count_ = 0;
    return freed;
  }

  std::uint32_t size() const { return count_; }

 private:
  std::unique_ptr<rte_mbuf*[]> packets_;
  std::unique_ptr<std::uint32_t[]> slots_;
  std::uint32_t count_ = 0;
};

}  // namespace braid::bond
