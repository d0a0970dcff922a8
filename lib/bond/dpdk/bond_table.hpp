// One published generation of a bond's forwarding state: which member each bucket sends on and
// which members collect. Each traffic class has a table of its own (a bond without classes has
// one): the buckets of every class in one array, class-major, so a packet's slot is its class and
// its hash's high bits. Built by the control thread, read by workers without locks; immutable
// once published.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "bond/bucket_assignment.hpp"
#include "classify/class_spec.hpp"
#include "config/config.hpp"

namespace braid::bond {

inline constexpr std::size_t kMaxMembers = config::kMaxBondMembers;

struct BondTable {
  std::uint64_t generation = 0;
  std::uint32_t bucket_shift = 24;   // bucket = hash >> bucket_shift (the hash's high bits)
  std::uint32_t class_shift = 8;     // log2 of the buckets per class
  std::vector<MemberIndex> buckets;  // classes x (1 << class_shift)
  std::array<bool, kMaxMembers> distributing{};  // members that own buckets may send
  std::array<bool, kMaxMembers> collecting{};    // frames from other members are discarded
  // Per class, the members its buckets may name (bit m: member m).
  std::array<std::uint16_t, classify::kMaxClasses> class_members{};
  // Classes under the spray policy (bit c: class c): a worker walks their buckets one per packet
  // instead of indexing them by the flow hash.
  std::uint8_t spray_classes = 0;
  // Per class, the members whose PFC storm on the class's priority drops its packets
  // (scheduler.pfc_watchdog action drop; bit m), and whether any does (one test per burst).
  std::array<std::uint16_t, classify::kMaxClasses> storm_dropping{};
  bool storm_drops = false;

  std::uint32_t slot(std::uint32_t class_id, std::uint32_t hash) const {
    return class_id << class_shift | hash >> bucket_shift;
  }
};

}  // namespace braid::bond
