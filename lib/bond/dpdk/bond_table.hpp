// One published generation of a bond's forwarding state: which member each bucket sends on and
// which members collect. Built by the control thread, read by workers without locks; immutable
// once published.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "bond/bucket_assignment.hpp"

namespace braid::bond {

inline constexpr std::size_t kMaxMembers = 16;

struct BondTable {
  std::uint64_t generation = 0;
  std::uint32_t bucket_shift = 24;  // bucket = hash >> bucket_shift (the hash's high bits)
  std::vector<MemberIndex> buckets;
  std::array<bool, kMaxMembers> distributing{};  // members that own buckets may send
  std::array<bool, kMaxMembers> collecting{};    // frames from other members are discarded

  MemberIndex member_for(std::uint32_t hash) const { return buckets[hash >> bucket_shift]; }
};

}  // namespace braid::bond
