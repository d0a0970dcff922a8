// The link emulator's carrier flap schedule.
#include "linkemu/flap_pattern.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace braid::linkemu {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

TEST(FlapPattern, DownForTheDownTimeAtTheStartOfEachPeriodCountTimesThenUp) {
  const FlapPattern flaps{.period_ns = 1000 * kMs, .down_ns = 200 * kMs, .count = 3};
  const std::uint64_t start = 5000 * kMs;
  EXPECT_TRUE(flaps.carrier_up(start, start - 1));
  EXPECT_FALSE(flaps.carrier_up(start, start));
  EXPECT_FALSE(flaps.carrier_up(start, start + 199 * kMs));
  EXPECT_TRUE(flaps.carrier_up(start, start + 200 * kMs));
  EXPECT_FALSE(flaps.carrier_up(start, start + 1000 * kMs));
  EXPECT_FALSE(flaps.carrier_up(start, start + 2100 * kMs));
  EXPECT_TRUE(flaps.carrier_up(start, start + 2200 * kMs));
  EXPECT_TRUE(flaps.carrier_up(start, start + 3000 * kMs)) << "three flaps, no fourth";
  EXPECT_TRUE(flaps.carrier_up(start, start + 60'000 * kMs));
  EXPECT_EQ(flaps.flaps_begun(start, start + 60'000 * kMs), 3u);
  EXPECT_EQ(flaps.end_ns(start), start + 2200 * kMs);
}

TEST(FlapPattern, NextChangeWalksEveryEdge) {
  const FlapPattern flaps{.period_ns = 1000 * kMs, .down_ns = 200 * kMs, .count = 2};
  std::vector<std::uint64_t> edges;
  for (std::uint64_t t = 0; t != UINT64_MAX; t = flaps.next_change_ns(0, t))
    edges.push_back(t);
  EXPECT_EQ(edges, (std::vector<std::uint64_t>{0, 200 * kMs, 1000 * kMs, 1200 * kMs}));
  EXPECT_EQ(FlapPattern{.count = 0}.next_change_ns(0, 0), UINT64_MAX);
}

}  // namespace
}  // namespace braid::linkemu
