#include "sched/policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

#include "bond/bucket_assignment.hpp"

namespace braid::sched {
namespace {

struct Case {
  std::vector<MemberState> members;
  std::vector<MemberIndex> buckets;
  std::vector<double> load;
  std::unique_ptr<bool[]> movable;
  std::unique_ptr<bool[]> holdable;

  Case(std::size_t member_count, std::size_t bucket_count, bool all_movable = true)
      : members(member_count, MemberState{true, 1000, std::nullopt, std::nullopt, 0, 0}),
        buckets(bucket_count, 0),
        load(bucket_count, 0.0),
        movable(new bool[bucket_count]),
        holdable(new bool[bucket_count]()) {
    for (std::size_t b = 0; b < bucket_count; ++b)
      movable[b] = all_movable;
  }
  PlanInput input(std::uint32_t max_moves = 1u << 20, std::uint32_t max_holds = 0) const {
    return {members,   buckets,
            load,      std::span<const bool>(movable.get(), buckets.size()),
            max_moves, std::span<const bool>(holdable.get(), buckets.size()),
            max_holds, 10'000'000};
  }
};

TEST(PolicyNames, ParseAndPrintEveryPolicy) {
  for (PolicyKind kind : {PolicyKind::kHash, PolicyKind::kWrr, PolicyKind::kLqf,
                          PolicyKind::kAdaptive, PolicyKind::kLatency}) {
    EXPECT_EQ(parse_policy(policy_name(kind)), kind);
    EXPECT_EQ(make_policy(kind)->kind(), kind);
  }
  EXPECT_FALSE(parse_policy("random").has_value());
}

TEST(HashPolicy, NeverMovesABucketAndNeitherDoesSpray) {
  Case c(4, 256);
  for (std::size_t b = 0; b < 256; ++b)
    c.load[b] = b < 8 ? 1000 : 1;  // very unbalanced: member 0 has every elephant
  for (const PolicyKind kind : {PolicyKind::kHash, PolicyKind::kSpray}) {
    const Plan plan = make_policy(kind)->plan(c.input());
    EXPECT_EQ(plan.moved, 0u);
    EXPECT_EQ(plan.buckets, c.buckets);
    EXPECT_FALSE(moves_flowlets(kind));
  }
  EXPECT_TRUE(moves_flowlets(PolicyKind::kLatency));
}

TEST(WrrPolicy, SharesAreExactOverACycle) {
  // From a table that is all on member 0, every bucket idle: one step reaches the quotas.
  Case c(2, 256);
  c.members[0].weight = 3000;
  c.members[1].weight = 1000;
  const Plan plan = make_wrr_policy()->plan(c.input());
  EXPECT_EQ(bond::bucket_counts(plan.buckets, 2), (std::vector<std::uint32_t>{192, 64}));
  // The bond's initial table for the same weights interleaves them: every cycle of 3 + 1
  // consecutive buckets holds exactly 3 of member 0 and 1 of member 1.
  const std::vector<std::uint32_t> weights = {3, 1};
  const auto table = bond::interleaved_assignment(weights, 256);
  for (std::size_t start = 0; start + 4 <= table.size(); start += 4) {
    const auto cycle = bond::bucket_counts(std::span(table).subspan(start, 4), 2);
    EXPECT_EQ(cycle, (std::vector<std::uint32_t>{3, 1})) << "cycle at " << start;
  }
}

TEST(WrrPolicy, OnlyIdleBucketsMoveTowardsNewWeights) {
  Case c(2, 256, false);
  for (std::size_t b = 0; b < 256; ++b)
    c.buckets[b] = b % 2;  // 1:1
  for (std::size_t b = 0; b < 256; b += 4)
    c.movable[b] = true;  // 64 idle buckets, all on member 0
  c.members[0].weight = 1000;
  c.members[1].weight = 3000;
  const Plan plan = make_wrr_policy()->plan(c.input());
  EXPECT_EQ(plan.moved, 64u);
  for (std::size_t b = 0; b < 256; ++b) {
    if (!c.movable[b]) {
      EXPECT_EQ(plan.buckets[b], c.buckets[b]) << "busy bucket " << b << " moved";
    }
  }
  EXPECT_EQ(bond::bucket_counts(plan.buckets, 2), (std::vector<std::uint32_t>{64, 192}));
}

TEST(LqfPolicy, AMovableFlowletGoesToTheShortestQueue) {
  Case c(4, 8, false);
  for (std::size_t b = 0; b < 8; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = 10;
  }
  c.members[0].queue_depth = 50;
  c.members[1].queue_depth = 20;
  c.members[2].queue_depth = 90;
  c.members[3].queue_depth = 70;
  c.movable[2] = true;  // one idle bucket on the longest queue
  const Plan plan = make_lqf_policy()->plan(c.input());
  EXPECT_EQ(plan.moved, 1u);
  EXPECT_EQ(plan.buckets[2], 1);
}

TEST(LqfPolicy, BalancesLoadWithoutTouchingBusyBuckets) {
  Case c(4, 256);
  for (std::size_t b = 0; b < 256; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = (b % 4 == 0) ? 30 : 10;  // member 0 carries 3x the others
  }
  for (std::size_t b = 0; b < 256; b += 8)
    c.movable[b] = false;  // busy ones stay
  const Plan plan = make_lqf_policy()->plan(c.input());
  std::vector<double> per(4, 0);
  for (std::size_t b = 0; b < 256; ++b) {
    per[plan.buckets[b]] += c.load[b];
    if (!c.movable[b]) {
      EXPECT_EQ(plan.buckets[b], c.buckets[b]);
    }
  }
  const double mean = (per[0] + per[1] + per[2] + per[3]) / 4;
  for (double member : per)
    EXPECT_LE(member / mean, 1.05);
}

TEST(LqfPolicy, RespectsTheMoveBudget) {
  Case c(2, 256);
  for (std::size_t b = 0; b < 256; ++b)
    c.load[b] = 1;  // everything on member 0
  const Plan plan = make_lqf_policy()->plan(c.input(10));
  EXPECT_EQ(plan.moved, 10u);
}

TEST(AdaptivePolicy, LoadFollowsWeights) {
  Case c(2, 256);
  for (std::size_t b = 0; b < 256; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 2);
    c.load[b] = 1 + b % 7;
  }
  c.members[1].weight = 500;  // member 1 congested: half the weight
  const Plan plan = make_adaptive_policy()->plan(c.input());
  std::vector<double> per(2, 0);
  for (std::size_t b = 0; b < 256; ++b)
    per[plan.buckets[b]] += c.load[b];
  EXPECT_NEAR(per[0] / (per[0] + per[1]), 2.0 / 3.0, 0.02);
}

TEST(AdaptivePolicy, ABalancedTableDoesNotChurn) {
  Case c(4, 256);
  for (std::size_t b = 0; b < 256; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = 5;
  }
  EXPECT_EQ(make_adaptive_policy()->plan(c.input()).moved, 0u);
}

// Member 3 (half weight, its queue standing) carries an elephant bucket and 15 mice, everything
// busy: 16 buckets of load 10 per member, bucket 3 (member 3's) of load `elephant`.
Case paused_member_with_elephant(double elephant, bool mice_idle) {
  Case c(4, 64, false);
  c.members[3].weight = 500;
  for (std::size_t b = 0; b < 64; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = b == 3 ? elephant : 10;
    c.movable[b] = mice_idle && b % 4 == 3 && b != 3;
    c.holdable[b] = b % 4 == 3 && !c.movable[b];
  }
  return c;
}

TEST(AdaptivePolicy, HoldsABusyElephantWhenNoIdleBucketCanRelieveItsMember) {
  const Case c = paused_member_with_elephant(200, false);  // fits on any other member
  const Plan plan = make_adaptive_policy()->plan(c.input(1u << 20, 1));
  EXPECT_EQ(plan.moved, 0u);
  EXPECT_EQ(plan.buckets, c.buckets);  // holds are the scheduler's to apply
  ASSERT_EQ(plan.holds.size(), 1u);
  EXPECT_EQ(plan.holds[0].bucket, 3u);
  EXPECT_NE(plan.holds[0].to, 3);
  // Without holds the busy member keeps everything.
  EXPECT_TRUE(make_adaptive_policy()->plan(c.input(1u << 20, 0)).holds.empty());
}

TEST(AdaptivePolicy, MovesIdleBucketsBeforeHoldingABusyOne) {
  const Case c = paused_member_with_elephant(100, true);
  const Plan plan = make_adaptive_policy()->plan(c.input(1u << 20, 4));
  EXPECT_EQ(plan.moved, 15u);  // every idle mouse leaves member 3
  EXPECT_TRUE(plan.holds.empty());
  EXPECT_EQ(plan.buckets[3], 3);
}

// The paused member (half weight) carries only the elephant, and the elephant alone is more than
// that member's share of the load but fits on any other member: it is held to the least loaded
// one, although that member ends above its target for now (its mice leave it later).
TEST(AdaptivePolicy, HoldsAnElephantThatAloneOverloadsItsMemberToOneWhereItFits) {
  Case c(4, 64, false);
  c.members[3].weight = 500;
  for (std::size_t b = 0; b < 64; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = b % 4 == 3 ? 0 : 10;
    c.holdable[b] = b % 4 == 3;
  }
  c.load[3] = 150;  // of 630 in all: member 3's target is 90, the others' 180
  c.load[0] = 8;    // member 0 the least loaded
  const Plan plan = make_adaptive_policy()->plan(c.input(1u << 20, 2));
  ASSERT_EQ(plan.holds.size(), 1u);
  EXPECT_EQ(plan.holds[0].bucket, 3u);
  EXPECT_EQ(plan.holds[0].to, 0);
  // Only a few percent over (85 against 80.4): moving it would cost more than it saves.
  c.load[3] = 85;
  EXPECT_TRUE(make_adaptive_policy()->plan(c.input(1u << 20, 2)).holds.empty());
}

// Once the elephant sits where it fits, the member it left is never its destination again,
// however far below its target that member is: there it would overflow on its own.
TEST(AdaptivePolicy, NeverSendsABucketToAMemberItAloneWouldOverload) {
  Case c(4, 64);
  c.members[3].weight = 500;
  for (std::size_t b = 0; b < 64; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = b % 4 == 3 ? 0 : 10;
  }
  c.load[0] = 150;  // the elephant, on member 0 with 15 mice: 300 against a target of 180
  const Plan plan = make_adaptive_policy()->plan(c.input());
  EXPECT_EQ(plan.buckets[0], 0);
  std::vector<double> per(4, 0);
  for (std::size_t b = 0; b < 64; ++b)
    per[plan.buckets[b]] += c.load[b];
  EXPECT_GT(per[3], 0);  // mice went to the paused member instead
  EXPECT_LT(per[0], 300);
}

// With equal shares an elephant that overloads one member overloads every other: it stays.
TEST(LqfPolicy, AnElephantLargerThanAnyShareStaysWhereItIs) {
  Case c(2, 16);
  for (std::size_t b = 0; b < 16; ++b)
    c.buckets[b] = static_cast<MemberIndex>(b % 2);
  c.load[0] = 100;
  c.load[1] = 10;
  const Plan plan = make_lqf_policy()->plan(c.input());
  EXPECT_EQ(plan.buckets[0], 0);
}

// Four members, 64 buckets round robin, each carrying 100 packets per 10 ms period; members
// drain 2000 packets per period and send 1600: 400 spare each. `delay_ns` by member.
Case latency_case(std::initializer_list<std::optional<std::uint64_t>> delay_ns) {
  Case c(4, 64);
  std::size_t m = 0;
  for (const std::optional<std::uint64_t>& delay : delay_ns) {
    c.members[m].delay_ns = delay;
    c.members[m].drain_per_ns = 2e-4;
    c.members[m].sent_per_ns = 1.6e-4;
    ++m;
  }
  for (std::size_t b = 0; b < 64; ++b) {
    c.buckets[b] = static_cast<MemberIndex>(b % 4);
    c.load[b] = 100;
  }
  return c;
}

std::vector<std::uint32_t> moved_from(const Case& c, const Plan& plan, MemberIndex member) {
  std::vector<std::uint32_t> to(c.members.size(), 0);
  for (std::size_t b = 0; b < c.buckets.size(); ++b) {
    if (c.buckets[b] == member && plan.buckets[b] != member) ++to[plan.buckets[b]];
  }
  return to;
}

TEST(LatencyPolicy, FlowletsLeaveAStandingQueueForWhereTheyFitWithoutOne) {
  // Member 0 waits 10 ms: 2000 packets queued, 400 of them still there at the period's end.
  const Case c = latency_case({10'000'000, 0, 0, 0});
  const Plan plan = make_latency_policy()->plan(c.input());
  for (std::size_t b = 0; b < 64; ++b) {
    if (c.buckets[b] != 0) {
      EXPECT_EQ(plan.buckets[b], c.buckets[b]) << "bucket " << b;
    }
  }
  // 400 spare packets per period are 4 flowlets each; the others queue where that costs least
  // (0.5 ms each), so the load spreads instead of all landing on member 1, and the last one
  // stays where its wait, with the others gone, is as short as anywhere.
  EXPECT_EQ(plan.moved, 15u);
  const std::vector<std::uint32_t> to = moved_from(c, plan, 0);
  EXPECT_EQ(to[0], 0u);
  for (MemberIndex m = 1; m < 4; ++m) {
    EXPECT_EQ(to[m], 5u) << "member " << m;
  }
}

// Issue 34 item 10: as flowlets left, the source's wait was never lowered, so every flowlet of
// a member with a short-lived queue left in one period (up to max_moves) and came back the next.
TEST(LatencyPolicy, AsManyLeaveAsRelieveTheQueueAndNoneComesBack) {
  // Member 0 waits 4 ms: 800 packets, 400 of them left at the period's end at its load of 1600.
  Case c = latency_case({4'000'000, 0, 0, 0});
  const Plan plan = make_latency_policy()->plan(c.input());
  EXPECT_EQ(plan.moved, 4u);  // 400 packets a period less: its queue is gone by the period's end

  // The next period, as that plan leaves it: each member's queue after draining 2000 packets.
  Case next = latency_case({0, 0, 0, 0});
  next.buckets = plan.buckets;
  for (MemberIndex m = 0; m < 4; ++m) {
    double load = 0;
    for (std::size_t b = 0; b < 64; ++b)
      load += plan.buckets[b] == m ? c.load[b] : 0;
    const double queue = static_cast<double>(*c.members[m].delay_ns) * 2e-4;
    next.members[m].sent_per_ns = load / 1e7;
    next.members[m].delay_ns =
        static_cast<std::uint64_t>(std::max(0.0, queue + load - 2000) / 2e-4);
  }
  EXPECT_EQ(make_latency_policy()->plan(next.input()).moved, 0u);
}

TEST(LatencyPolicy, SmallDifferencesMoveNothing) {
  // 1.5 us more (below the 2 us any receiver could tell) and 8% more (below 10%).
  const Case close = latency_case({1'500, 0, 0, 0});
  EXPECT_EQ(make_latency_policy()->plan(close.input()).moved, 0u);
  const Case near = latency_case({108'000, 100'000, 100'000, 100'000});
  EXPECT_EQ(make_latency_policy()->plan(near.input()).moved, 0u);
}

TEST(LatencyPolicy, AMemberWithoutADelayEstimateIsNeitherSourceNorDestination) {
  const Case c = latency_case({std::nullopt, 10'000'000, 0, 5'000'000});
  const Plan plan = make_latency_policy()->plan(c.input());
  EXPECT_EQ(moved_from(c, plan, 0), (std::vector<std::uint32_t>{0, 0, 0, 0}));
  for (std::size_t b = 0; b < 64; ++b) {
    if (c.buckets[b] != 0) {
      EXPECT_NE(plan.buckets[b], 0) << "bucket " << b;
    }
  }
  // Member 1's 10 ms wait ends where the others' waits with its flowlets would be no shorter:
  // the empty queue takes them, and some stay.
  const std::vector<std::uint32_t> from1 = moved_from(c, plan, 1);
  EXPECT_GT(from1[2], 0u);
  EXPECT_LT(from1[2] + from1[3], 16u);
}

TEST(LatencyPolicy, ADegradedMemberWaitsLongerForTheSameQueue) {
  // Members 0 and 1 have the same 100 us queue, member 1 at half weight (degraded): it drains
  // at half the rate, so its wait is 200 us and its flowlets go to member 0.
  Case c = latency_case({100'000, 100'000, std::nullopt, std::nullopt});
  c.members[1].weight = 500;
  const Plan plan = make_latency_policy()->plan(c.input());
  EXPECT_EQ(moved_from(c, plan, 0), (std::vector<std::uint32_t>{0, 0, 0, 0}));
  EXPECT_GT(moved_from(c, plan, 1)[0], 0u);
}

TEST(LatencyPolicy, OnlyIdleFlowletsMoveAndNoMoreThanTheBound) {
  Case c = latency_case({10'000'000, 0, 0, 0});
  for (std::size_t b = 0; b < 64; ++b)
    c.movable[b] = b < 32;  // 8 of member 0's 16 are idle
  const Plan plan = make_latency_policy()->plan(c.input(5));
  EXPECT_EQ(plan.moved, 5u);
  for (std::size_t b = 32; b < 64; ++b)
    EXPECT_EQ(plan.buckets[b], c.buckets[b]);
}

TEST(LatencyPolicy, BusyFlowletsBehindAStandingQueueAreHeldNoMoreThanTheBound) {
  Case c = latency_case({25'000'000, 0, 0, 0});  // member 0's queue stands 25 ms
  for (std::size_t b = 0; b < 64; ++b) {
    c.movable[b] = false;
    c.holdable[b] = c.buckets[b] == 0;
  }
  const Plan plan = make_latency_policy()->plan(c.input(1u << 20, 2));
  EXPECT_EQ(plan.moved, 0u);
  ASSERT_EQ(plan.holds.size(), 2u);
  for (const HoldRequest& hold : plan.holds) {
    EXPECT_EQ(c.buckets[hold.bucket], 0);
    EXPECT_NE(hold.to, 0);
  }
  EXPECT_TRUE(make_latency_policy()->holds_busy());
  EXPECT_FALSE(make_lqf_policy()->holds_busy());
}

TEST(LatencyPolicy, WithoutQueueProbesItIsHash) {
  const Case c = latency_case({std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  EXPECT_EQ(make_latency_policy()->plan(c.input()).moved, 0u);
}

}  // namespace
}  // namespace braid::sched
