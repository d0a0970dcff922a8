// The bond's distribution table as data: bucket -> member. Flows hash to a bucket (the high bits
// of their hash, see flow::hash_bucket), the bucket names the member that sends them. A member
// change moves only the buckets it must (a leaving member's buckets; a joining member's fair
// share), weights are bucket shares, and a single bucket can move alone (flowlets).
// Pure: no DPDK, used by the control thread to build tables and by the tests.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace braid::bond {

using MemberIndex = std::uint16_t;
inline constexpr MemberIndex kNoMember = 0xffff;
// A busy bucket the scheduler is moving: workers hold its packets, in order, until a table names
// its new member, so it changes member without reordering (doc/scheduler.md, held moves).
inline constexpr MemberIndex kHeldBucket = 0xfffe;
// Packets one worker can hold for a bond's held buckets: a hold lasts the flowlet gap plus the
// old member's drain time (a few ms at most), 2048 covers an elephant of 0.5 Mpps per worker
// held for 4 ms. Packets beyond it are dropped (counted as flowlet_hold). scripts/lib/common.bash
// (hugepage sizing) counts the same number.
inline constexpr std::uint32_t kHeldPacketsPerWorker = 2048;

inline constexpr std::uint32_t kMinBuckets = 256;
inline constexpr std::uint32_t kMaxBuckets = 65536;

// Buckets each member should own: proportional to its weight (0 = not active), by largest
// remainder, summing to `buckets` when any weight is non-zero.
std::vector<std::uint32_t> bucket_quotas(std::span<const std::uint32_t> weights,
                                         std::uint32_t buckets);

// A fresh assignment with the members interleaved smoothly (smooth weighted round robin over
// bucket indices), so any contiguous run of buckets holds the weight ratio as closely as
// integers allow. Every bucket is kNoMember when no weight is non-zero.
std::vector<MemberIndex> interleaved_assignment(std::span<const std::uint32_t> weights,
                                                std::uint32_t buckets);

struct RebalanceResult {
  std::vector<MemberIndex> buckets;
  std::uint32_t moved = 0;  // buckets whose member changed
};

// Moves as few buckets as possible so each member ends at its quota: buckets of members whose
// weight is now 0 (or that are unknown) and the excess of members above quota are freed, then
// handed to members below quota in smooth-WRR order. Members at or below quota keep every
// bucket they have, so a member leaving moves only its own buckets.
// `home` (empty, or one member per bucket: see update_homes): a member above quota frees first
// the buckets whose home is below quota, and a freed bucket goes back to its home while that one
// is below quota. So a member that returns gets back the very buckets it lost, and no flow that
// never left a survivor moves.
RebalanceResult rebalance(std::span<const MemberIndex> current,
                          std::span<const std::uint32_t> weights,
                          std::span<const MemberIndex> home = {});

// Each bucket's home after `buckets` was published: where it is, unless it left a member that is
// still short of its share under `nominal_weights` (every member as if usable, at full health):
// a member that failed or is degraded keeps the homes of the buckets it lost until it is back.
void update_homes(std::span<MemberIndex> home, std::span<const MemberIndex> buckets,
                  std::span<const std::uint32_t> nominal_weights);

// Failover without disturbing anyone else: only buckets of members whose weight is now 0 (or
// that are unknown) move, to the members furthest below their quota first. Used when a scheduler
// moves buckets flowlet by flowlet and a rebuild must not move busy buckets of healthy members;
// held buckets (kHeldBucket) stay held, the scheduler releases them.
RebalanceResult reassign_orphans(std::span<const MemberIndex> current,
                                 std::span<const std::uint32_t> weights);

// How many buckets each member owns (index = member; kNoMember buckets are not counted).
std::vector<std::uint32_t> bucket_counts(std::span<const MemberIndex> buckets,
                                         std::size_t member_count);

}  // namespace braid::bond
