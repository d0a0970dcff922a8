#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace braid::sched {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

struct World {
  std::vector<MemberInput> members;
  std::vector<BucketActivity> activity;
  std::vector<MemberIndex> buckets;

  World(std::size_t member_count, std::uint32_t bucket_count)
      : members(member_count), activity(bucket_count), buckets(bucket_count) {
    for (MemberInput& member : members) {
      member.distributing = true;
      member.counters.present = CongestionCounters::kPauseDurationUs;
    }
    for (std::uint32_t b = 0; b < bucket_count; ++b)
      buckets[b] = static_cast<MemberIndex>(b % member_count);
  }
  // Every bucket sends `packets` this period; `busy` ones right up to `now`.
  void traffic(std::uint64_t now_ns, std::uint64_t packets, bool busy) {
    for (BucketActivity& bucket : activity) {
      bucket.packets += packets;
      bucket.last_seen_ns = busy ? now_ns : now_ns - 5 * kMs;
    }
  }
  void apply(const StepResult& result) {
    if (result.buckets) buckets = *result.buckets;
  }
};

Settings adaptive() {
  Settings settings;
  settings.policy = PolicyKind::kAdaptive;
  settings.max_moves = 1024;
  return settings;
}

TEST(Scheduler, ABusyBucketNeverMovesWhateverTheFeedbackSays) {
  Scheduler scheduler(adaptive(), 4, 256);
  World world(4, 256);
  const auto before = world.buckets;
  for (int period = 1; period <= 50; ++period) {
    const std::uint64_t now = period * 10 * kMs;
    world.traffic(now, 10, true);
    world.members[3].counters.pause_duration_us += 5000;  // paused half of every period
    const StepResult result = scheduler.step(now, world.members, world.activity, world.buckets);
    EXPECT_FALSE(result.buckets.has_value()) << "period " << period;
  }
  EXPECT_EQ(world.buckets, before);
  EXPECT_LT(scheduler.weights()[3], 600u);  // the weight did follow the signal
  EXPECT_EQ(scheduler.moves(), 0u);
}

TEST(Scheduler, ACongestedMemberLosesWeightAndLoadWithTheCauseRecorded) {
  Scheduler scheduler(adaptive(), 4, 256);
  World world(4, 256);
  for (int period = 1; period <= 30; ++period) {
    const std::uint64_t now = period * 10 * kMs;
    world.traffic(now, 10, false);  // idle at every period boundary: flowlets may move
    world.members[3].counters.pause_duration_us += 5000;
    world.apply(scheduler.step(now, world.members, world.activity, world.buckets));
  }
  const Snapshot snap = scheduler.snapshot();
  EXPECT_NEAR(snap.members[3].factor_permille, 500, 30);
  EXPECT_EQ(snap.members[0].factor_permille, 1000u);
  ASSERT_FALSE(snap.history.empty());
  EXPECT_EQ(snap.history.front().member, 3);
  EXPECT_NE(snap.history.front().cause.find("paused 50%"), std::string::npos)
      << snap.history.front().cause;
  const auto counts = bond::bucket_counts(world.buckets, 4);
  // Equal load per bucket: member 3 should carry 0.5 / 3.5 of it.
  EXPECT_NEAR(counts[3] / 256.0, 0.5 / 3.5, 0.03);
  EXPECT_GT(snap.moves, 0u);
}

TEST(Scheduler, RunTimeChangesAreRecorded) {
  Scheduler scheduler(Settings{}, 2, 256);
  EXPECT_EQ(scheduler.policy(), PolicyKind::kHash);
  scheduler.set_policy(PolicyKind::kWrr, 1);
  scheduler.set_weight(1, 3, 2);
  EXPECT_EQ(scheduler.weights(), (std::vector<std::uint32_t>{1000, 3000}));
  scheduler.set_flowlet_gap_ns(200'000);
  const Snapshot snap = scheduler.snapshot();
  EXPECT_EQ(snap.flowlet_gap_ns, 200'000u);
  ASSERT_EQ(snap.history.size(), 1u);
  EXPECT_EQ(snap.history[0].cause, "configured weight 3");
}

}  // namespace
}  // namespace braid::sched
