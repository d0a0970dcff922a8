#include "common/deadline_lag.hpp"

#include <gtest/gtest.h>

namespace braid {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kSecond = 1000 * kMs;

TEST(DeadlineLag, WorstSinceStartAndOverTheLastMinute) {
  DeadlineLag lag(50 * kMs);
  lag.record(DeadlineKind::kLacpPeriodic, 10 * kSecond, 10 * kSecond + 3 * kMs);
  EXPECT_EQ(lag.record(DeadlineKind::kLacpPeriodic, 11 * kSecond, 11 * kSecond + 80 * kMs),
            80 * kMs);
  lag.record(DeadlineKind::kLacpPeriodic, 12 * kSecond, 12 * kSecond);  // on time
  DeadlineLag::Stats stats = lag.stats(DeadlineKind::kLacpPeriodic, 12 * kSecond);
  EXPECT_EQ(stats.served, 3u);
  EXPECT_EQ(stats.late, 1u);  // over the 50 ms slack
  EXPECT_EQ(stats.worst_ns, 80 * kMs);
  EXPECT_EQ(stats.worst_last_minute_ns, 80 * kMs);
  EXPECT_EQ(stats.last_ns, 0u);
  // Two minutes later the 80 ms has left the window but not the since-start figure.
  lag.record(DeadlineKind::kLacpPeriodic, 130 * kSecond, 130 * kSecond + kMs);
  stats = lag.stats(DeadlineKind::kLacpPeriodic, 130 * kSecond);
  EXPECT_EQ(stats.worst_last_minute_ns, kMs);
  EXPECT_EQ(stats.worst_ns, 80 * kMs);
  // Kinds are apart.
  EXPECT_EQ(lag.stats(DeadlineKind::kLinkPoll, 130 * kSecond).served, 0u);
}

TEST(DeadlineLag, EarlyIsNotLate) {
  DeadlineLag lag;
  EXPECT_EQ(lag.record(DeadlineKind::kLinkPoll, 5 * kSecond, 4 * kSecond), 0u);
}

TEST(DeadlineLag, LoopPeriodIsTheGapBetweenIterations) {
  DeadlineLag lag;
  lag.record_iteration(kSecond);
  lag.record_iteration(kSecond + kMs);
  lag.record_iteration(kSecond + 21 * kMs);
  const DeadlineLag::Stats loop = lag.loop(2 * kSecond);
  EXPECT_EQ(loop.served, 3u);
  EXPECT_EQ(loop.last_ns, 20 * kMs);
  EXPECT_EQ(loop.worst_ns, 20 * kMs);
}

}  // namespace
}  // namespace braid
