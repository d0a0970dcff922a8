// A degraded member's health factor (MemberInput::health_permille) under every flowlet policy:
// its share is cut to that fraction of what the policy gives it, only its own buckets move,
// the cut survives the policy's own weight changes, and it is undone when the member recovers.
#include <gtest/gtest.h>

#include <vector>

#include "sched/policy.hpp"
#include "sched/scheduler.hpp"

namespace braid::sched {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint32_t kBuckets = 256;

struct Bond {
  Scheduler scheduler;
  std::vector<MemberInput> members;
  std::vector<BucketActivity> activity;
  std::vector<MemberIndex> buckets;
  std::uint64_t now_ns = 0;
  std::size_t moved_between_others = 0;  // a bucket moved from one healthy member to another

  explicit Bond(PolicyKind policy, std::vector<std::uint32_t> weights = {1, 1, 1})
      : scheduler(settings(policy, std::move(weights)), 3, kBuckets),
        members(3),
        activity(kBuckets),
        buckets(kBuckets) {
    for (MemberInput& member : members) {
      member.distributing = true;
      member.queue_depth = 0;
    }
    for (std::uint32_t b = 0; b < kBuckets; ++b)
      buckets[b] = static_cast<MemberIndex>(b % 3);
  }
  static Settings settings(PolicyKind policy, std::vector<std::uint32_t> weights) {
    Settings s;
    s.policy = policy;
    s.weights = std::move(weights);
    s.max_moves = 1024;
    return s;
  }
  // Periods of equal load on every bucket, idle at each period boundary (every bucket movable).
  void run(int periods) {
    for (int p = 0; p < periods; ++p) {
      now_ns += 10 * kMs;
      for (BucketActivity& bucket : activity) {
        bucket.packets += 10;
        bucket.last_seen_ns = now_ns - 5 * kMs;
      }
      const StepResult result = scheduler.step(now_ns, members, activity, buckets);
      if (!result.buckets) continue;
      for (std::uint32_t b = 0; b < kBuckets; ++b) {
        const MemberIndex before = buckets[b], after = (*result.buckets)[b];
        // Held on the way (kHeldBucket) counts as where it goes: only 1 <-> 2 is a move between
        // the healthy members.
        if (before != after && before != 0 && after != 0 && before != bond::kHeldBucket &&
            after != bond::kHeldBucket)
          ++moved_between_others;
      }
      buckets = *result.buckets;
    }
  }
  std::vector<std::uint32_t> counts() const { return bond::bucket_counts(buckets, 3); }
};

class HealthWeight : public ::testing::TestWithParam<PolicyKind> {};

INSTANTIATE_TEST_SUITE_P(Policies, HealthWeight,
                         ::testing::Values(PolicyKind::kWrr, PolicyKind::kLqf,
                                           PolicyKind::kAdaptive),
                         [](const ::testing::TestParamInfo<PolicyKind>& policy) {
                           return std::string(policy_name(policy.param));
                         });

TEST_P(HealthWeight, ADegradedMemberIsCutToItsFactorAndOnlyItsBucketsMove) {
  Bond bond(GetParam());
  bond.run(20);
  const std::vector<std::uint32_t> even = bond.counts();
  EXPECT_NEAR(even[0], kBuckets / 3.0, 6);
  const std::vector<MemberIndex> before = bond.buckets;

  bond.members[0].health_permille = 100;  // degraded: a tenth of its weight
  bond.run(20);
  // 100 : 1000 : 1000 of 256 buckets (equal load per bucket): 12.2 on member 0.
  // lqf and adaptive balance load within a tolerance: a few buckets either way.
  EXPECT_NEAR(bond.counts()[0], kBuckets * 100.0 / 2100.0, 6) << "member 0 was not cut";
  for (std::uint32_t b = 0; b < kBuckets; ++b) {
    if (before[b] != 0) {
      EXPECT_EQ(bond.buckets[b], before[b]) << "bucket " << b;
    }
  }
  EXPECT_EQ(bond.moved_between_others, 0u);

  const std::vector<MemberIndex> cut = bond.buckets;
  bond.members[0].health_permille = 1000;  // recovered
  bond.run(20);
  EXPECT_NEAR(bond.counts()[0], kBuckets / 3.0, 6) << "member 0 did not get its share back";
  for (std::uint32_t b = 0; b < kBuckets; ++b) {
    if (bond.buckets[b] != cut[b]) {
      EXPECT_EQ(bond.buckets[b], 0u) << "bucket " << b;
    }
  }
  EXPECT_EQ(bond.moved_between_others, 0u);
}

TEST(HealthWeight, TheCutSurvivesARunTimeWeightChange) {
  // wrr, member 0 degraded to a tenth; then its configured weight goes 1 -> 4 (the console's
  // `set bond ... weight`): it gets a tenth of 4, not 4.
  Bond bond(PolicyKind::kWrr);
  bond.members[0].health_permille = 100;
  bond.run(20);
  EXPECT_NEAR(bond.counts()[0], kBuckets * 100.0 / 2100.0, 3);
  bond.scheduler.set_weight(0, 4, bond.now_ns);
  bond.run(20);
  EXPECT_NEAR(bond.counts()[0], kBuckets * 400.0 / 2400.0, 3);
  EXPECT_EQ(bond.scheduler.weights()[0], 4000u) << "the scheduler's own weight is not cut";
}

TEST(HealthWeight, AnAdaptiveWeightThatFeedbackLowersStaysCutToo) {
  // adaptive, member 0 degraded; member 1 paused half of every period: its AIMD weight falls,
  // and member 0 still carries a tenth of its own weight's share.
  Bond bond(PolicyKind::kAdaptive);
  for (MemberInput& member : bond.members)
    member.counters.present = CongestionCounters::kPauseDurationUs;
  bond.members[0].health_permille = 100;
  for (int p = 0; p < 30; ++p) {
    bond.members[1].counters.pause_duration_us += 5000;
    bond.run(1);
  }
  const std::vector<std::uint32_t> weights = bond.scheduler.weights();
  EXPECT_LT(weights[1], 700u) << "the feedback did not lower member 1";
  const double share0 = weights[0] * 0.1 / (weights[0] * 0.1 + weights[1] + weights[2]);
  EXPECT_NEAR(bond.counts()[0], kBuckets * share0, 6);
}

}  // namespace
}  // namespace braid::sched
