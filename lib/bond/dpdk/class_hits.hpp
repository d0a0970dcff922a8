// Per worker and bond, the data frames each traffic class took (doc/classes.md) and the packets
// braid marked CE for it on each member (classes.list[].ecn): the worker classifies every frame
// it distributes on a bond with classes and counts it here (single writer, like
// datapath::WorkerCounters); the control thread sums the workers' arrays for `show classes` and
// the metrics. Each worker's block also carries what the control thread lets each class send
// (ClassLimits: its rate cap's share and, on a short member, what a class that gives way may
// send there), written by the bond's scheduler every period and read by that worker alone.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "bond/dpdk/bond_table.hpp"
#include "classify/class_spec.hpp"
#include "datapath/counters.hpp"

namespace braid::bond {

// A share limit this high is none (sched::kUnlimitedPps).
inline constexpr std::uint32_t kNoShareLimit = UINT32_MAX;

using ClassMemberCounts = std::array<std::array<std::uint64_t, kMaxMembers>, classify::kMaxClasses>;

struct alignas(64) ClassLimits {
  ClassLimits() {
    for (auto& row : share_pps) {
      for (auto& limit : row)
        limit.store(kNoShareLimit, std::memory_order_relaxed);
    }
  }
  // Bumped (release) after the control thread changed any limit below; the worker re-reads them
  // when it sees a new value (acquire).
  std::atomic<std::uint32_t> version{0};
  // This worker's part of each class's rate cap, bytes per second (0: uncapped).
  std::array<std::atomic<std::uint64_t>, classify::kMaxClasses> cap_bytes_per_s{};
  // What each class may send on each member, packets per second (kNoShareLimit: no limit).
  std::array<std::array<std::atomic<std::uint32_t>, kMaxMembers>, classify::kMaxClasses> share_pps;
};

struct alignas(64) ClassHits {
  std::array<datapath::Counter, classify::kMaxClasses> packets;
  // Marked CE by braid, by class and member.
  std::array<std::array<datapath::Counter, kMaxMembers>, classify::kMaxClasses> ecn_marked;
  // Chosen for a mark but Not-ECT (or not IP): left alone, as RFC 3168 requires.
  std::array<datapath::Counter, classify::kMaxClasses> ecn_not_ect;
  // Offered to each member (after the rate cap, before a share limit): what the share arbiter
  // splits a short member by, and the PFC watchdog's sign that a priority has traffic waiting.
  // Counted only while some class reserves a share or the watchdog runs.
  std::array<std::array<datapath::Counter, kMaxMembers>, classify::kMaxClasses> offered;
  // Dropped to leave a short member to the reserved classes (drop reason class_gave_way).
  std::array<std::array<datapath::Counter, kMaxMembers>, classify::kMaxClasses> gave_way;
  // Dropped over the class's rate cap (class_rate_cap).
  std::array<datapath::Counter, classify::kMaxClasses> rate_capped;
  // Dropped for a PFC storm on the class's priority on the member (pfc_storm, action drop).
  std::array<std::array<datapath::Counter, kMaxMembers>, classify::kMaxClasses> storm_dropped;

  ClassLimits limits;  // written by the control thread
};

}  // namespace braid::bond
