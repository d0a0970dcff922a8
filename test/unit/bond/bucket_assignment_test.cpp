#include "bond/bucket_assignment.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <random>

namespace braid::bond {
namespace {

TEST(BucketQuotas, ProportionalAndComplete) {
  const std::vector<std::uint32_t> weights = {3, 1, 0, 4};
  const auto quotas = bucket_quotas(weights, 256);
  EXPECT_EQ(quotas, (std::vector<std::uint32_t>{96, 32, 0, 128}));
  const std::vector<std::uint32_t> odd = {1, 1, 1};
  const auto thirds = bucket_quotas(odd, 256);
  EXPECT_EQ(std::accumulate(thirds.begin(), thirds.end(), 0u), 256u);
  EXPECT_EQ(thirds, (std::vector<std::uint32_t>{86, 85, 85}));
  const std::vector<std::uint32_t> none = {0, 0};
  EXPECT_EQ(bucket_quotas(none, 256), (std::vector<std::uint32_t>{0, 0}));
}

TEST(InterleavedAssignment, ThreeToOneHoldsAtEveryPrefix) {
  const std::vector<std::uint32_t> weights = {3, 1};
  const auto buckets = interleaved_assignment(weights, 1024);
  std::uint32_t first = 0;
  for (std::size_t length = 1; length <= buckets.size(); ++length) {
    first += buckets[length - 1] == 0 ? 1 : 0;
    const double expected = 0.75 * static_cast<double>(length);
    EXPECT_LE(std::abs(static_cast<double>(first) - expected), 1.0) << "prefix " << length;
  }
  EXPECT_EQ(first, 768u);
}

TEST(InterleavedAssignment, NoActiveMemberMeansNoMember) {
  const std::vector<std::uint32_t> weights = {0, 0, 0};
  for (MemberIndex member : interleaved_assignment(weights, 256))
    EXPECT_EQ(member, kNoMember);
}

TEST(Rebalance, ALeavingMemberMovesOnlyItsOwnBuckets) {
  const std::vector<std::uint32_t> four = {1, 1, 1, 1};
  const auto before = interleaved_assignment(four, 256);
  const std::vector<std::uint32_t> three = {1, 0, 1, 1};
  const RebalanceResult after = rebalance(before, three);
  EXPECT_EQ(after.moved, 64u);
  for (std::size_t b = 0; b < before.size(); ++b) {
    if (before[b] != 1) {
      EXPECT_EQ(after.buckets[b], before[b]) << "bucket " << b << " moved";
    }
    EXPECT_NE(after.buckets[b], 1);
  }
  const auto counts = bucket_counts(after.buckets, 4);
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{86, 0, 85, 85}));
}

TEST(Rebalance, AJoiningMemberTakesOnlyItsFairShare) {
  const std::vector<std::uint32_t> three = {1, 1, 1, 0};
  const auto before = interleaved_assignment(three, 1024);
  const std::vector<std::uint32_t> four = {1, 1, 1, 1};
  const RebalanceResult after = rebalance(before, four);
  EXPECT_EQ(after.moved, 256u);
  for (std::size_t b = 0; b < before.size(); ++b) {
    // A bucket either stays or goes to the newcomer; old members never swap buckets.
    EXPECT_TRUE(after.buckets[b] == before[b] || after.buckets[b] == 3) << "bucket " << b;
  }
  EXPECT_EQ(bucket_counts(after.buckets, 4), (std::vector<std::uint32_t>{256, 256, 256, 256}));
}

TEST(Rebalance, WeightsBecomeBucketShares) {
  const std::vector<std::uint32_t> equal = {1, 1};
  const auto before = interleaved_assignment(equal, 4096);
  const std::vector<std::uint32_t> skewed = {3, 1};
  const RebalanceResult after = rebalance(before, skewed);
  EXPECT_EQ(bucket_counts(after.buckets, 2), (std::vector<std::uint32_t>{3072, 1024}));
  EXPECT_EQ(after.moved, 1024u);  // exactly the difference, nothing more
}

TEST(Rebalance, AllMembersDownEmptiesTheTableAndComingBackRefillsIt) {
  const std::vector<std::uint32_t> two = {1, 1};
  const auto before = interleaved_assignment(two, 256);
  const std::vector<std::uint32_t> none = {0, 0};
  const RebalanceResult down = rebalance(before, none);
  EXPECT_EQ(down.moved, 256u);
  for (MemberIndex member : down.buckets)
    EXPECT_EQ(member, kNoMember);
  const RebalanceResult up = rebalance(down.buckets, two);
  EXPECT_EQ(bucket_counts(up.buckets, 2), (std::vector<std::uint32_t>{128, 128}));
}

TEST(Rebalance, RandomChangesAlwaysLandOnQuotaWithMinimalMoves) {
  std::mt19937 random(42);
  std::vector<std::uint32_t> weights = {1, 1, 1, 1};
  auto buckets = interleaved_assignment(weights, 512);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::uint32_t> next = weights;
    next[random() % 4] = random() % 5;
    const auto quotas = bucket_quotas(next, 512);
    const auto before_counts = bucket_counts(buckets, 4);
    const RebalanceResult result = rebalance(buckets, next);
    // The fewest moves possible: the buckets above quota (plus unassigned ones).
    std::uint32_t lower_bound = 0;
    for (std::size_t m = 0; m < 4; ++m) {
      if (before_counts[m] > quotas[m]) lower_bound += before_counts[m] - quotas[m];
    }
    const auto unassigned =
        static_cast<std::uint32_t>(std::count(buckets.begin(), buckets.end(), kNoMember));
    const bool any_active = std::accumulate(next.begin(), next.end(), 0u) > 0;
    if (any_active) {
      EXPECT_EQ(result.moved, lower_bound + unassigned);
      EXPECT_EQ(bucket_counts(result.buckets, 4), quotas);
    }
    buckets = result.buckets;
    weights = next;
  }
}

// A member that fails and returns gets back the very buckets it had: the flows that failed over
// go home and no flow that stayed on a survivor moves (without homes, the survivors gave up their
// last buckets instead, moving flows that never left them).
TEST(RebalanceWithHomes, AReturningMemberGetsBackItsOwnBucketsAndNoSurvivorFlowMoves) {
  const std::vector<std::uint32_t> four = {1, 1, 1, 1};
  const std::vector<std::uint32_t> three = {1, 0, 1, 1};
  const auto original = interleaved_assignment(four, 1024);
  std::vector<MemberIndex> home = original;
  const RebalanceResult down = rebalance(original, three, home);
  update_homes(home, down.buckets, four);
  EXPECT_EQ(down.moved, 256u);
  EXPECT_EQ(home, original) << "member 1 is short: its buckets keep their home";
  const RebalanceResult up = rebalance(down.buckets, four, home);
  EXPECT_EQ(up.moved, 256u);
  EXPECT_EQ(up.buckets, original);
  update_homes(home, up.buckets, four);
  EXPECT_EQ(home, original);
  // Without homes the count is the same but other buckets move: flows that never left.
  const RebalanceResult plain = rebalance(down.buckets, four);
  std::uint32_t survivors_moved = 0;
  for (std::size_t b = 0; b < original.size(); ++b)
    survivors_moved += original[b] != 1 && plain.buckets[b] != original[b] ? 1 : 0;
  EXPECT_GT(survivors_moved, 0u);
}

// A degraded member (a lower weight) that recovers gets back what it gave up, as a failed one
// does; with two members out at once, every move stays minimal and the table lands on quota
// (exact homecoming is then only as good as the survivors' excess allows).
TEST(RebalanceWithHomes, DegradationsAndOverlappingFailuresStayMinimal) {
  const std::vector<std::uint32_t> all = {10, 10, 10, 10};
  const auto original = interleaved_assignment(all, 512);
  std::vector<MemberIndex> home = original;
  std::vector<MemberIndex> table = original;
  const auto step = [&](const std::vector<std::uint32_t>& weights) {
    const auto before = bucket_counts(table, 4);
    const auto quotas = bucket_quotas(weights, 512);
    const RebalanceResult result = rebalance(table, weights, home);
    std::uint32_t lower_bound = 0;
    for (std::size_t m = 0; m < 4; ++m)
      lower_bound += before[m] > quotas[m] ? before[m] - quotas[m] : 0;
    EXPECT_EQ(result.moved, lower_bound);
    EXPECT_EQ(bucket_counts(result.buckets, 4), quotas);
    table = result.buckets;
    update_homes(home, table, all);
  };
  step({10, 10, 1, 10});  // member 2 degraded to a tenth
  step({10, 10, 10, 10});
  EXPECT_EQ(table, original);
  step({10, 0, 10, 10});
  step({10, 0, 0, 10});
  step({10, 0, 10, 10});
  step({10, 10, 10, 10});
  std::uint32_t away = 0;
  for (std::size_t b = 0; b < table.size(); ++b)
    away += table[b] != original[b] ? 1 : 0;
  std::printf("two overlapping failures: %u of 512 buckets away from their first member\n", away);
}

// The homes follow the table while every member is at its share (a weight change that sticks, a
// scheduler's move): they only remember for a member that is short.
TEST(RebalanceWithHomes, HomesFollowTheTableWhenNoMemberIsShort) {
  const std::vector<std::uint32_t> two = {1, 1};
  const auto table = interleaved_assignment(two, 256);
  std::vector<MemberIndex> home(256, 0);
  update_homes(home, table, two);
  EXPECT_EQ(home, table);
  std::vector<MemberIndex> swapped = table;
  std::swap(swapped[0], swapped[1]);  // still 128 each
  update_homes(home, swapped, two);
  EXPECT_EQ(home, swapped);
}

}  // namespace
}  // namespace braid::bond

namespace braid::bond {
namespace {

TEST(ReassignOrphans, OnlyTheLeavingMembersBucketsMoveEvenWhenOthersAreOffQuota) {
  std::vector<MemberIndex> current(256, 0);
  for (std::size_t b = 200; b < 256; ++b)
    current[b] = 2;  // member 0 far above its quota, member 1 empty, member 2 leaves
  const std::vector<std::uint32_t> weights = {1, 1, 0};
  const RebalanceResult result = reassign_orphans(current, weights);
  EXPECT_EQ(result.moved, 56u);
  for (std::size_t b = 0; b < 200; ++b)
    EXPECT_EQ(result.buckets[b], 0);
  for (std::size_t b = 200; b < 256; ++b)
    EXPECT_EQ(result.buckets[b], 1);  // the member below quota takes them
}

TEST(ReassignOrphans, HeldBucketsStayHeldAndAFullRebalanceReleasesThem) {
  std::vector<MemberIndex> current(256, 0);
  for (std::size_t b = 0; b < 256; b += 2)
    current[b] = 1;
  current[10] = kHeldBucket;  // the scheduler is moving it
  current[11] = 2;            // member 2 leaves
  const std::vector<std::uint32_t> weights = {1, 1, 0};
  const RebalanceResult orphans = reassign_orphans(current, weights);
  EXPECT_EQ(orphans.moved, 1u);
  EXPECT_EQ(orphans.buckets[10], kHeldBucket);
  EXPECT_NE(orphans.buckets[11], 2);
  const RebalanceResult full = rebalance(current, weights);
  EXPECT_LT(full.buckets[10], 2);
  EXPECT_EQ(bucket_counts(current, 3)[0] + bucket_counts(current, 3)[1], 254u);  // held: none
}

}  // namespace
}  // namespace braid::bond
