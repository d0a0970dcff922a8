#include "sched/activity_counts.hpp"

#include <gtest/gtest.h>

namespace braid::sched {
namespace {

TEST(ActivityCounts, OneWorkersWrapIsASmallStepNotTwoToTheSixtyFour) {
  ActivityCounts counts(4);
  counts.observe(0, 2, 0xFFFFFF00u);  // a long-running worker, near the top
  counts.observe(1, 2, 1000);
  const std::uint64_t before = counts.total(2);
  // Worker 0 carries 0x200 more packets and wraps; worker 1 carries 10 more.
  EXPECT_TRUE(counts.observe(0, 2, 0x100u));
  EXPECT_TRUE(counts.observe(1, 2, 1010));
  EXPECT_EQ(counts.total(2) - before, 0x200u + 10u);
  // A sum of the raw 32-bit counts would have gone down: its 64-bit difference is ~2^64.
  const std::uint64_t raw_before = 0xFFFFFF00ull + 1000;
  const std::uint64_t raw_after = 0x100ull + 1010;
  EXPECT_GT(raw_after - raw_before, std::uint64_t{1} << 63);
}

TEST(ActivityCounts, UnchangedCountsSayIdle) {
  ActivityCounts counts(1);
  EXPECT_TRUE(counts.observe(0, 0, 5));
  EXPECT_FALSE(counts.observe(0, 0, 5));
  EXPECT_EQ(counts.total(0), 5u);
}

}  // namespace
}  // namespace braid::sched
