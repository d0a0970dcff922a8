// A bond as a worker sees it: what every worker shares about it (BondShared), and the egress side
// that hashes a burst and hands each packet to its bucket's member TX buffer; the ingress side,
// a member's RX burst, is bond_ingress.hpp. One object per (worker, bond); no locks: the table
// comes from TablePublisher, everything else belongs to the worker.
#pragma once

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "bond/bfd_divert.hpp"
#include "bond/bucket_activity.hpp"
#include "bond/dpdk/bond_ingress.hpp"
#include "bond/dpdk/bond_shared.hpp"
#include "bond/dpdk/bucket_hold.hpp"
#include "bond/dpdk/class_hits.hpp"
#include "bond/dpdk/class_policer.hpp"
#include "bond/dpdk/table_publisher.hpp"
#include "bond/slow_policer.hpp"
#include "classify/classifier.hpp"
#include "classify/classify_burst.hpp"
#include "classify/frame_fields.hpp"
#include "common/split_mix64.hpp"
#include "common/token_bucket.hpp"
#include "datapath/counters.hpp"
#include "datapath/tx_buffer.hpp"
#include "ecn/ce_mark.hpp"
#include "ecn/ecn_profile.hpp"
#include "flow/dpdk/mbuf_hash.hpp"

namespace braid::bond {

class BondEgress {
 public:
  // `activity`: this worker's own per-slot activity array (every class's buckets) for the
  // scheduler's flowlets (nullptr: not recorded).
  // `class_hits`: this worker's per-class counts (nullptr: the bond has no classes).
  BondEgress(const BondShared& shared, std::array<datapath::TxBuffer*, kMaxMembers> member_tx,
             BucketActivityArray* activity = nullptr, ClassHits* class_hits = nullptr)
      : shared_(&shared), member_tx_(member_tx), activity_(activity), class_hits_(class_hits) {}

  // Distributes a burst on the newest table, adopted once, first (no function here re-enters
  // another: a burst never leaves on a table older than the one this worker has adopted).
  void send(rte_mbuf** packets, std::uint16_t n, datapath::WorkerCounters& counters) {
    distribute(adopt_newest(counters), packets, n, counters);
    flush_after_failover();
  }

  // At the drain tick (engine::TxQueueProbe): takes the newest table even when no packet came
  // for this bond, so held packets it releases leave, and the queue measurement that follows
  // tells the scheduler this worker has seen it.
  void refresh(datapath::WorkerCounters& counters) {
    adopt_newest(counters);
    flush_after_failover();
  }
  // This worker's own TX queue on `member`: descriptors in use as its queue probe last read them
  // (at most kQueueProbeIntervalUs ago), what its ECN marking adds its TX buffer to.
  void note_queue(std::size_t member, std::uint32_t descriptors) {
    if (member >= kMaxMembers) return;
    queue_[member] = descriptors;
    queue_known_[member] = true;
  }

  // The generation of the table this worker distributes on (its acknowledgement to the
  // scheduler, through the queue probe: held moves wait for every worker's).
  std::uint64_t seen_generation() const { return seen_; }
  // Packets held for buckets being moved (in flight, for the accounting invariant).
  std::uint32_t held() const { return hold_.size(); }
  // The worker stops: what it held is dropped and counted.
  void drop_held(datapath::WorkerCounters& counters) {
    counters.drops[static_cast<std::size_t>(datapath::DropReason::kFlowletHold)].add(
        hold_.free_all());
  }

 private:
  const BondTable& adopt_newest(datapath::WorkerCounters& counters) {
    const BondTable* table = shared_->publisher->current();
    if (table->generation != seen_) adopt(*table, counters);
    return *table;
  }

  // `first_pass` false: packets a failover takes back from a member (adopt), already counted,
  // policed and marked on their first pass; they only find their new member.
  void distribute(const BondTable& table, rte_mbuf** packets, std::uint16_t n,
                  datapath::WorkerCounters& counters, bool first_pass = true) {
    // Each packet's hash, then its slot in the table (its class's buckets, its hash's bucket).
    std::array<std::uint32_t, datapath::kMaxBurst> slots;
    if (class_hits_ != nullptr) {
      // Classified inside the hash pass, while each group's bytes are in L1.
      std::array<classify::ClassId, datapath::kMaxBurst> classes;
      classify::BurstClassifier classifier(*shared_->classifier, classes.data());
      flow::dpdk::mbuf_hash_burst(*shared_->hasher, packets, n, slots.data(), classifier.visitor());
      class_slots(table, classes.data(), n, slots.data(), first_pass);
      if (table.storm_drops) n = drop_stormed(table, packets, n, slots.data(), counters);
      if (first_pass && (shared_->count_offered || shared_->policed_classes != 0))
        n = police(table, packets, n, slots.data(), counters);
      if (first_pass && shared_->ecn_classes != 0) mark_ecn(table, packets, n, slots.data());
    } else {
      flow::dpdk::mbuf_hash_burst(*shared_->hasher, packets, n, slots.data());
      if (table.spray_classes != 0) {  // the bond's one table, sprayed
        const std::uint32_t last = (1u << table.class_shift) - 1;
        for (std::uint16_t i = 0; i < n; ++i)
          slots[i] = spray_next_[0]++ & last;
      } else {
        const std::uint32_t shift = table.bucket_shift;
        for (std::uint16_t i = 0; i < n; ++i)
          slots[i] >>= shift;
      }
    }
    if (class_hits_ == nullptr && table.storm_drops)
      n = drop_stormed(table, packets, n, slots.data(), counters);
    // Whether a flowlet policy reads the activity is asked once per burst, so the per-packet
    // loop has no branch on it; then one TSC read per burst.
    if (activity_ != nullptr && shared_->record_activity->load(std::memory_order_relaxed)) {
      fan_out<true>(table, packets, slots.data(), n, activity_stamp(rte_rdtsc()), counters);
    } else {
      fan_out<false>(table, packets, slots.data(), n, 0, counters);
    }
  }

  // Each frame's class counted, and its hash turned into a slot of that class's table; a sprayed
  // class's next slot instead. (Only bonds with classes pay for classes: doc/benchmarks.md.)
  void class_slots(const BondTable& table, const classify::ClassId* classes, std::uint16_t n,
                   std::uint32_t* slots, bool count = true) {
    classify::ClassCounts hits{};
    if (count)
      classify::count_classes(classes, n, shared_->classifier->spec().classes.size(), hits);
    const std::uint32_t spray = table.spray_classes;
    for (std::uint16_t i = 0; i < n; ++i) {
      const classify::ClassId class_id = classes[i];
      const std::uint32_t hash =
          (spray >> class_id & 1) != 0 ? spray_next_[class_id]++ << table.bucket_shift : slots[i];
      slots[i] = table.slot(class_id, hash);
    }
    for (std::size_t c = 0; c < hits.size(); ++c) {
      if (hits[c] != 0) class_hits_->packets[c].add(hits[c]);
    }
  }

  // PFC storm, action drop: the packets of a class whose priority storms on their member are
  // dropped and counted (by class and member where the bond has classes), the rest close up.
  std::uint16_t drop_stormed(const BondTable& table, rte_mbuf** packets, std::uint16_t n,
                             std::uint32_t* slots, datapath::WorkerCounters& counters) {
    std::array<rte_mbuf*, datapath::kMaxBurst> dropped;
    std::uint16_t stormed = 0, kept = 0;
    for (std::uint16_t i = 0; i < n; ++i) {
      const std::uint32_t class_id = slots[i] >> table.class_shift;
      const MemberIndex member = table.buckets[slots[i]];
      if (member < shared_->member_count && (table.storm_dropping[class_id] >> member & 1u) != 0) {
        if (class_hits_ != nullptr) class_hits_->storm_dropped[class_id][member].add(1);
        dropped[stormed++] = packets[i];
        continue;
      }
      packets[kept] = packets[i];
      slots[kept++] = slots[i];
    }
    if (stormed != 0) {
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kPfcStorm)].add(stormed);
      rte_pktmbuf_free_bulk(dropped.data(), stormed);
    }
    return kept;
  }

  // Rate caps and share limits: each packet of a policed class is metered against its class's
  // cap (bytes), then, on a member where the class gives way, against its limit there
  // (packets); what does not fit is dropped and counted, the rest closes up in place, except a
  // RoCEv2 CNP: dropping one keeps its sender at full rate into the congestion it reports, so it
  // always passes (looked for only in what would be dropped). What each class offers each member
  // is counted in the same pass.
  std::uint16_t police(const BondTable& table, rte_mbuf** packets, std::uint16_t n,
                       std::uint32_t* slots, datapath::WorkerCounters& counters) {
    policer_.refresh(class_hits_->limits, shared_->member_count, shared_->cap_burst_bytes);
    const std::uint64_t tsc = rte_rdtsc();
    const std::uint32_t policed = shared_->policed_classes;
    const bool count_offered = shared_->count_offered;
    std::array<rte_mbuf*, datapath::kMaxBurst> dropped;
    std::uint16_t capped = 0, gave_way = 0, kept = 0;
    for (std::uint16_t i = 0; i < n; ++i) {
      const std::uint32_t class_id = slots[i] >> table.class_shift;
      const MemberIndex member = table.buckets[slots[i]];
      const bool to_member = member < shared_->member_count;  // not held or dropped
      if ((policed >> class_id & 1) != 0) {
        if (policer_.capped(class_id) &&
            !policer_.within_cap(class_id, tsc, rte_pktmbuf_pkt_len(packets[i])) &&
            !is_cnp(packets[i])) {
          class_hits_->rate_capped[class_id].add(1);
          dropped[capped++ + gave_way] = packets[i];
          continue;
        }
        if (to_member && count_offered) class_hits_->offered[class_id][member].add(1);
        if (to_member && policer_.share_limited(class_id, member) &&
            !policer_.within_share(class_id, member, tsc) && !is_cnp(packets[i])) {
          class_hits_->gave_way[class_id][member].add(1);
          dropped[capped + gave_way++] = packets[i];
          continue;
        }
      } else if (to_member && count_offered) {
        class_hits_->offered[class_id][member].add(1);
      }
      packets[kept] = packets[i];
      slots[kept++] = slots[i];
    }
    if (capped + gave_way != 0) {
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kClassRateCap)].add(capped);
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kClassGaveWay)].add(gave_way);
      rte_pktmbuf_free_bulk(dropped.data(), capped + gave_way);
    }
    return kept;
  }

  static bool is_cnp(const rte_mbuf* packet) {
    return classify::is_roce_cnp(
        ByteSpan(rte_pktmbuf_mtod(packet, const std::uint8_t*), packet->data_len));
  }

  // braid's own ECN marking: each packet of a class with a profile is chosen with the
  // probability the depth of this worker's own queue on its member gives (as a switch marks on
  // its instantaneous queue): the descriptors in use its probe read last, at most 1 ms ago, plus
  // what its TX buffer holds now; thresholds once per burst, one draw per packet; when ECT,
  // marked CE. Not the bond's depth of the last scheduler period summed over workers: that
  // marked up to a period after a burst had drained, missed bursts shorter than a period, and
  // marked less the more workers there were. A packet whose buffer another reference shares is
  // never written.
  void mark_ecn(const BondTable& table, rte_mbuf* const* packets, std::uint16_t n,
                const std::uint32_t* slots) {
    std::array<std::array<std::uint64_t, kMaxMembers>, classify::kMaxClasses> threshold;
    const std::uint32_t classes = shared_->ecn_classes;
    for (std::size_t c = 0; c < classify::kMaxClasses; ++c) {
      if ((classes >> c & 1) == 0) continue;
      for (std::uint16_t m = 0; m < shared_->member_count; ++m) {
        // An unknown queue (no descriptor status, no emulated link) is not its buffer alone.
        const datapath::TxBuffer* buffer = member_tx_[m];
        const std::uint32_t depth =
            queue_known_[m] ? queue_[m] + (buffer != nullptr ? buffer->pending() : 0u) : 0u;
        threshold[c][m] = ecn::mark_threshold(*shared_->ecn[c], depth);
      }
    }
    for (std::uint16_t i = 0; i < n; ++i) {
      const std::uint32_t class_id = slots[i] >> table.class_shift;
      if ((classes >> class_id & 1) == 0) continue;
      const MemberIndex member = table.buckets[slots[i]];
      if (member >= shared_->member_count) continue;  // held or dropped: not sent now
      const std::uint64_t limit = threshold[class_id][member];
      if (limit == 0 || (limit != ecn::kAlwaysMark && ecn_random_() >= limit)) continue;
      rte_mbuf* packet = packets[i];
      if (RTE_MBUF_CLONED(packet) || rte_mbuf_refcnt_read(packet) != 1) continue;
      const ecn::MarkResult result =
          ecn::mark_ce(MutableByteSpan(rte_pktmbuf_mtod(packet, std::uint8_t*), packet->data_len));
      if (result == ecn::MarkResult::marked) {
        class_hits_->ecn_marked[class_id][member].add(1);
      } else if (result != ecn::MarkResult::already_ce) {
        class_hits_->ecn_not_ect[class_id].add(1);
      }
    }
  }

  // Each packet to its bucket's member, held or dropped; under a flowlet policy its bucket's
  // activity is recorded in the same pass (two stores into this worker's own array).
  template <bool kRecordActivity>
  void fan_out(const BondTable& table, rte_mbuf** packets, const std::uint32_t* slots,
               std::uint16_t n, std::uint32_t stamp, datapath::WorkerCounters& counters) {
    std::array<rte_mbuf*, datapath::kMaxBurst> unsendable;
    std::uint16_t dropped = 0;
    std::uint16_t hold_full = 0;
    // The table's array once per burst (a flush inside the loop is a call the compiler must
    // assume changes it).
    const MemberIndex* buckets = table.buckets.data();
    BucketActivityArray* activity = activity_;
    for (std::uint16_t i = 0; i < n; ++i) {
      const std::uint32_t slot = slots[i];
      if constexpr (kRecordActivity) activity->record(slot, stamp);
      const MemberIndex member = buckets[slot];
      if (member < kHeldBucket) {
        member_tx_[member]->add_one(packets[i]);
      } else if (member == kNoMember || !hold_.push(packets[i], slot)) {
        unsendable[dropped++] = packets[i];
        hold_full += member == kHeldBucket ? 1 : 0;
      }
    }
    if (dropped != 0) {
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kNoMember)].add(dropped -
                                                                                    hold_full);
      if (hold_full != 0)
        counters.drops[static_cast<std::size_t>(datapath::DropReason::kFlowletHold)].add(hold_full);
      rte_pktmbuf_free_bulk(unsendable.data(), dropped);
    }
  }

  // A new generation: packets waiting for a member that no longer distributes are re-hashed
  // onto the new table instead of being sent on a dead link. A table that takes a member out
  // (a failover) has everything this worker buffers leave at the end of the burst, not at the
  // drain deadline: the first packets of the moved flows are on a survivor at once.
  void adopt(const BondTable& table, datapath::WorkerCounters& counters) {
    seen_ = table.generation;
    for (std::uint16_t m = 0; m < shared_->member_count; ++m) {
      failover_ |= distributing_[m] && !table.distributing[m];
      distributing_[m] = table.distributing[m];
    }
    if (hold_.size() != 0) release_held(table, counters);
    for (std::uint16_t m = 0; m < shared_->member_count; ++m) {
      if (member_tx_[m]->pending() == 0) continue;
      if (table.distributing[m]) {
        // A bucket may have moved away from this member: what was queued for it under the old
        // table leaves now, before any packet the new table sends elsewhere, so a moved flow's
        // old packets are never behind its new ones.
        member_tx_[m]->flush();
        continue;
      }
      std::array<rte_mbuf*, datapath::kMaxBurst> pending;
      const std::uint16_t n = member_tx_[m]->take(pending.data());
      counters.rerouted.add(n);
      distribute(table, pending.data(), n, counters, false);
    }
  }

  void flush_after_failover() {
    if (!failover_) return;
    failover_ = false;
    for (std::uint16_t m = 0; m < shared_->member_count; ++m) {
      if (member_tx_[m]->pending() != 0) member_tx_[m]->flush();
    }
  }

  // Held buckets the new table gives a member: what this worker held for them goes there now,
  // ahead of their next packets.
  void release_held(const BondTable& table, datapath::WorkerCounters& counters) {
    hold_.release([&](rte_mbuf* packet, std::uint32_t slot) {
      const MemberIndex member = table.buckets[slot];
      if (member == kHeldBucket) return false;
      if (member == kNoMember) {
        counters.drops[static_cast<std::size_t>(datapath::DropReason::kNoMember)].add(1);
        rte_pktmbuf_free(packet);
      } else {
        member_tx_[member]->add_one(packet);
      }
      return true;
    });
  }

  const BondShared* shared_;
  std::array<datapath::TxBuffer*, kMaxMembers> member_tx_;
  BucketActivityArray* activity_;
  ClassHits* class_hits_;
  // The generation, not the address: a freed table's address may come back for a newer one.
  std::uint64_t seen_ = 0;
  std::array<bool, kMaxMembers> distributing_{};  // in the table last adopted
  bool failover_ = false;  // that table took a member out: flush at the end of the burst
  BucketHold hold_;
  // Per class, the next bucket a sprayed packet takes (the class's table walked round robin).
  std::array<std::uint32_t, classify::kMaxClasses> spray_next_{};
  ClassPolicer policer_;
  std::array<std::uint32_t, kMaxMembers> queue_{};  // note_queue: this worker's own, per member
  std::array<bool, kMaxMembers> queue_known_{};
  SplitMix64 ecn_random_{reinterpret_cast<std::uintptr_t>(this)};  // any seed; one per worker
};

}  // namespace braid::bond
