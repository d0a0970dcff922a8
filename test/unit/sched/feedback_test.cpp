#include <gtest/gtest.h>

#include <vector>

#include "sched/aimd.hpp"
#include "sched/congestion.hpp"
#include "sched/flowlet_tracker.hpp"

namespace braid::sched {
namespace {

TEST(FlowletTracker, ABusyBucketIsNeverMovable) {
  FlowletTracker tracker(4, 500'000);
  std::vector<BucketActivity> activity(4);
  activity[1] = {1'000'000, 10};  // seen at 1 ms
  tracker.update(activity, 1000);
  EXPECT_TRUE(tracker.movable(0, 1'200'000));   // never seen
  EXPECT_FALSE(tracker.movable(1, 1'200'000));  // 200 us ago < gap
  EXPECT_FALSE(tracker.movable(1, 1'500'000));  // exactly the gap: not longer than it
  EXPECT_TRUE(tracker.movable(1, 1'500'001));
  activity[1] = {1'400'000, 11};
  tracker.update(activity, 1000);
  EXPECT_FALSE(tracker.movable(1, 1'600'000));
  tracker.set_gap_ns(100'000);
  EXPECT_TRUE(tracker.movable(1, 1'600'000));
}

TEST(FlowletTracker, TheNewestWorkerWinsAndLoadIsPerPeriod) {
  FlowletTracker tracker(1, 500'000);
  tracker.update(std::vector<BucketActivity>{{100, 1000}}, 1000);
  EXPECT_EQ(tracker.load()[0], 0.0);                              // baseline only
  tracker.update(std::vector<BucketActivity>{{50, 1300}}, 1000);  // an older stamp never wins
  EXPECT_EQ(tracker.load()[0], 300.0);
  EXPECT_FALSE(tracker.movable(0, 400'000));
}

TEST(CongestionScore, PauseDurationIsAFractionOfThePeriod) {
  CongestionCounters before, after;
  before.present = after.present = CongestionCounters::kPauseDurationUs;
  after.pause_duration_us = 5000;
  const CongestionInputs in = congestion_inputs(before, after, 10'000'000, {});
  EXPECT_DOUBLE_EQ(in.pause_fraction, 0.5);
  EXPECT_DOUBLE_EQ(in.score(), 0.5);
}

TEST(CongestionScore, EachPrioritySeesItsOwnPausesAndTheMembersOtherCounters) {
  CongestionCounters before, after;
  for (CongestionCounters* c : {&before, &after}) {
    c->present = CongestionCounters::kPauseDurationUs | CongestionCounters::kDiscards |
                 CongestionCounters::kTxPackets;
    c->set_priority_pause_duration_us(0, 0);
    c->set_priority_pause_duration_us(3, 0);
  }
  after.pause_duration_us = 5000;  // the bond's priority, 3
  after.set_priority_pause_duration_us(3, 5000);
  after.tx_packets = 990;
  after.discards = 10;
  // Priority 3: half the period paused. Priority 0: none of it, the member's 1% discards still.
  EXPECT_DOUBLE_EQ(
      congestion_inputs(on_priority(before, 3, 3), on_priority(after, 3, 3), 10'000'000, {})
          .pause_fraction,
      0.5);
  const CongestionInputs zero =
      congestion_inputs(on_priority(before, 0, 3), on_priority(after, 0, 3), 10'000'000, {});
  EXPECT_DOUBLE_EQ(zero.pause_fraction, 0.0);
  EXPECT_NEAR(zero.discard_fraction, 0.01, 1e-9);
  // A priority the source did not read has no pause input at all.
  EXPECT_FALSE(on_priority(after, 5, 3).has(CongestionCounters::kPauseDurationUs));
  EXPECT_TRUE(on_priority(after, 5, 3).has(CongestionCounters::kDiscards));
}

TEST(CongestionScore, MissingCountersContributeNothing) {
  CongestionCounters before, after;
  after.pause_frames = 100;  // not marked present: ignored
  EXPECT_DOUBLE_EQ(congestion_inputs(before, after, 10'000'000, {}).score(), 0.0);
}

TEST(CongestionScore, MarksAreScaledByTheirShareOfPackets) {
  CongestionCounters before, after;
  before.present = after.present = CongestionCounters::kCnp | CongestionCounters::kTxPackets;
  after.cnp = 20;
  after.tx_packets = 1000;  // 2% marked, gain 10 -> 0.2
  EXPECT_NEAR(congestion_inputs(before, after, 10'000'000, {}).score(), 0.2, 1e-9);
}

TEST(CongestionScore, CountersGoingBackwardsReadAsQuiet) {
  CongestionCounters before, after;
  before.present = after.present = CongestionCounters::kDiscards;
  before.discards = 100;
  after.discards = 3;
  EXPECT_DOUBLE_EQ(congestion_inputs(before, after, 10'000'000, {}).score(), 0.0);
}

TEST(Aimd, ConvergesToWhatAHalfPausedLinkCarriesAndStaysThere) {
  AimdController aimd({});
  std::vector<std::uint32_t> trace;
  for (int period = 0; period < 200; ++period) {
    aimd.update(0.5);
    trace.push_back(aimd.factor_permille());
  }
  // Settled within 10 periods (100 ms at the default period), within the dead band of 500.
  for (std::size_t p = 10; p < trace.size(); ++p) {
    EXPECT_NEAR(static_cast<double>(trace[p]), 500.0, 30.0) << "period " << p;
  }
  // No oscillation: once settled it never changes again under a constant signal.
  for (std::size_t p = 11; p < trace.size(); ++p)
    EXPECT_EQ(trace[p], trace[10]) << "period " << p;
  // Monotone on the way down.
  for (std::size_t p = 1; p < trace.size(); ++p)
    EXPECT_LE(trace[p], trace[p - 1]);
}

TEST(Aimd, DecreaseIsMultiplicativeIncreaseAdditive) {
  AimdSettings settings;
  settings.smoothing_permille = 1000;  // no averaging and no dead band: see the law itself
  settings.hysteresis_permille = 0;
  AimdController aimd(settings);
  aimd.update(1.0);
  EXPECT_EQ(aimd.factor_permille(), 700u);  // x0.7
  aimd.update(1.0);
  EXPECT_EQ(aimd.factor_permille(), 490u);
  for (int i = 0; i < 20; ++i)
    aimd.update(1.0);
  EXPECT_EQ(aimd.factor_permille(), settings.floor_permille);
  aimd.update(0.0);
  EXPECT_EQ(aimd.factor_permille(), settings.floor_permille + 50);  // +5%
  for (int i = 0; i < 40; ++i)
    aimd.update(0.0);
  EXPECT_EQ(aimd.factor_permille(), settings.ceiling_permille);
}

TEST(Aimd, SmallNoiseInsideTheDeadBandChangesNothing) {
  AimdController aimd({});
  int changes = 0;
  for (int period = 0; period < 1000; ++period)
    changes += aimd.update(period % 2 == 0 ? 0.0 : 0.04) ? 1 : 0;
  EXPECT_EQ(changes, 0);
  EXPECT_EQ(aimd.factor_permille(), 1000u);
}

}  // namespace
}  // namespace braid::sched
