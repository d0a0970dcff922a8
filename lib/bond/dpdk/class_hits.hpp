// Per worker and bond, the data frames each traffic class took (doc/classes.md) and the packets
// braid marked CE for it on each member (classes.list[].ecn): the worker classifies every frame
// it distributes on a bond with classes and counts it here (single writer, like
// datapath::WorkerCounters); the control thread sums the workers' arrays for `show classes` and
// the metrics.
#pragma once

#include <array>

#include "bond/dpdk/bond_table.hpp"
#include "classify/class_spec.hpp"
#include "datapath/counters.hpp"

namespace braid::bond {

struct alignas(64) ClassHits {
  std::array<datapath::Counter, classify::kMaxClasses> packets;
  // Marked CE by braid, by class and member.
  std::array<std::array<datapath::Counter, kMaxMembers>, classify::kMaxClasses> ecn_marked;
  // Chosen for a mark but Not-ECT (or not IP): left alone, as RFC 3168 requires.
  std::array<datapath::Counter, classify::kMaxClasses> ecn_not_ect;
};

}  // namespace braid::bond
