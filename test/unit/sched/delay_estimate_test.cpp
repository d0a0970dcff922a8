#include "sched/delay_estimate.hpp"

#include <gtest/gtest.h>

namespace braid::sched {
namespace {

constexpr std::uint64_t kPeriod = 10'000'000;  // 10 ms

TEST(DelayEstimate, UnknownDepthHasNoDelayAndAnEmptyQueueNone) {
  DelayEstimate delay;
  EXPECT_FALSE(delay.delay_ns().has_value());
  delay.update(0, 500, kPeriod);
  EXPECT_EQ(delay.delay_ns(), 0u);
  delay.update(std::nullopt, 500, kPeriod);
  EXPECT_FALSE(delay.delay_ns().has_value());
}

TEST(DelayEstimate, ABusyQueueWaitsItsDepthOverWhatItSent) {
  DelayEstimate delay;
  delay.update(100, 0, kPeriod);
  delay.update(100, 1000, kPeriod);  // busy all period: 100 kpps
  EXPECT_EQ(delay.delay_ns(), 1'000'000u);
  EXPECT_DOUBLE_EQ(delay.drain_per_ns(), 1e-4);
}

TEST(DelayEstimate, APauseThatJustBeganCountsAtOnce) {
  DelayEstimate delay(100);  // a slow average
  delay.update(100, 0, kPeriod);
  for (int i = 0; i < 5; ++i)
    delay.update(100, 1000, kPeriod);
  delay.update(100, 500, kPeriod);  // paused half of this period
  EXPECT_EQ(delay.delay_ns(), 2'000'000u);
  EXPECT_GT(delay.drain_per_ns(), 5e-5);  // the average has not caught up: the newest decides
}

TEST(DelayEstimate, AQueueThatSentNothingForAPeriodIsStalled) {
  DelayEstimate delay;
  delay.update(100, 0, kPeriod);
  delay.update(120, 0, kPeriod);
  EXPECT_EQ(delay.delay_ns(), kStalledDelayNs);
}

TEST(DelayEstimate, AQueueThatOnlyJustFilledIsJudgedByWhatItSent) {
  DelayEstimate delay;
  delay.update(0, 0, kPeriod);
  delay.update(10, 0, kPeriod);  // nothing sent yet: cannot tell
  EXPECT_FALSE(delay.delay_ns().has_value());
  DelayEstimate sending;
  sending.update(0, 0, kPeriod);
  sending.update(10, 100, kPeriod);  // at least 10 kpps
  EXPECT_EQ(sending.delay_ns(), 1'000'000u);
  EXPECT_EQ(sending.drain_per_ns(), 0);  // not a busy period: no rate measured
}

TEST(DelayEstimate, AMeasuredRateOutlivesAnIdlePeriod) {
  DelayEstimate delay;
  delay.update(100, 0, kPeriod);
  delay.update(100, 1000, kPeriod);
  delay.update(0, 200, kPeriod);          // emptied
  delay.update(50, 10, kPeriod);          // refilled at the end of the period
  EXPECT_EQ(delay.delay_ns(), 500'000u);  // the busy rate, not the 1 kpps it sent
}

TEST(DelayEstimate, AnUnknownDepthForgetsTheRate) {
  DelayEstimate delay;
  delay.update(100, 0, kPeriod);
  delay.update(100, 1000, kPeriod);
  delay.update(std::nullopt, 1000, kPeriod);
  EXPECT_EQ(delay.drain_per_ns(), 0);
}

}  // namespace
}  // namespace braid::sched
