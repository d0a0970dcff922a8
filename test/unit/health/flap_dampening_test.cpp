#include "health/flap_dampening.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace braid::health {
namespace {

constexpr std::uint64_t kS = kNsPerSecond;

TEST(FlapDampening, OneHalfLifeHalvesThePenalty) {
  FlapDampening dampening({});
  dampening.on_flap(100 * kS);
  EXPECT_DOUBLE_EQ(dampening.penalty(100 * kS), 1000.0);
  EXPECT_NEAR(dampening.penalty(130 * kS), 500.0, 1e-9);
  EXPECT_NEAR(dampening.penalty(160 * kS), 250.0, 1e-9);
  EXPECT_DOUBLE_EQ(dampening.penalty(50 * kS), 1000.0);  // a time before the flap: no decay
}

TEST(FlapDampening, OneFlapOrTwoBackToBackNeverSuppress) {
  FlapDampening one({});
  EXPECT_FALSE(one.on_flap(kS));
  EXPECT_FALSE(one.suppressed(kS));
  FlapDampening two({});
  two.on_flap(kS);
  EXPECT_FALSE(two.on_flap(kS));  // 2000 is not above 2000
  EXPECT_DOUBLE_EQ(two.penalty(kS), 2000.0);
  EXPECT_FALSE(two.suppressed(kS));
}

TEST(FlapDampening, TheThirdFlapFiveSecondsApartSuppresses) {
  FlapDampening dampening({});
  EXPECT_FALSE(dampening.on_flap(0));
  EXPECT_FALSE(dampening.on_flap(5 * kS));
  EXPECT_NEAR(dampening.penalty(5 * kS), 1000 + 1000 * std::exp2(-5.0 / 30), 1e-6);  // 1891
  EXPECT_TRUE(dampening.on_flap(10 * kS));
  EXPECT_NEAR(dampening.penalty(10 * kS), 2685.0, 0.5);
  EXPECT_TRUE(dampening.suppressed(10 * kS));
}

TEST(FlapDampening, ReusedWhenThePenaltyHasDecayedToTheReuseThreshold) {
  FlapDampening dampening({});
  for (std::uint64_t t : {0ull, 5ull, 10ull})
    dampening.on_flap(t * kS);
  // 2685 -> 750: 30 s * log2(2685 / 750) = 55.2 s after the last flap.
  const std::uint64_t reuse = dampening.reuse_at(10 * kS);
  const double expected_s = 10 + 30 * std::log2(dampening.penalty(10 * kS) / 750);
  EXPECT_NEAR(static_cast<double>(reuse) / kS, expected_s, 1e-6);
  EXPECT_NEAR(expected_s, 65.2, 0.05);
  EXPECT_TRUE(dampening.suppressed(reuse - 1));
  EXPECT_FALSE(dampening.suppressed(reuse));
  EXPECT_NEAR(dampening.penalty(reuse), 750.0, 1e-3);
  EXPECT_EQ(dampening.reuse_at(reuse + kS), reuse + kS);  // not suppressed: now
}

TEST(FlapDampening, FlapsWhileSuppressedPushTheReuseTimeOut) {
  FlapDampening dampening({});
  for (std::uint64_t t : {0ull, 5ull, 10ull})
    dampening.on_flap(t * kS);
  const std::uint64_t first_reuse = dampening.reuse_at(10 * kS);
  EXPECT_FALSE(dampening.on_flap(60 * kS));  // already suppressed: not a new suppression
  EXPECT_GT(dampening.reuse_at(60 * kS), first_reuse);
}

TEST(FlapDampening, MaxSuppressCapsThePenaltyAndTheTimeOut) {
  FlapDampening dampening({});
  EXPECT_NEAR(dampening.ceiling(), 750.0 * 16, 1e-9);  // reuse * 2^(120 s / 30 s)
  for (std::uint64_t t = 0; t <= 600; t += 2)
    dampening.on_flap(t * kS);  // 5 minutes, every 2 s
  EXPECT_DOUBLE_EQ(dampening.penalty(600 * kS), 12000.0);
  EXPECT_EQ(dampening.reuse_at(600 * kS), 720 * kS);  // max_suppress after the last flap
  EXPECT_EQ(dampening.flaps(), 301u);
}

TEST(FlapDampening, ZeroPenaltyTurnsItOff) {
  DampeningSettings settings;
  settings.penalty_per_flap = 0;
  FlapDampening dampening(settings);
  for (std::uint64_t t = 0; t < 10; ++t)
    dampening.on_flap(t);
  EXPECT_FALSE(dampening.suppressed(10));
  EXPECT_EQ(dampening.flaps(), 10u);
  EXPECT_EQ(settings_error(settings), "");
}

TEST(FlapDampening, InconsistentSettingsAreExplained) {
  EXPECT_EQ(settings_error(DampeningSettings{}), "");
  DampeningSettings reuse_above;
  reuse_above.reuse_threshold = 3000;
  EXPECT_EQ(settings_error(reuse_above),
            "flap dampening: reuse_threshold (3000) must be above 0 and below suppress_threshold "
            "(2000)");
  DampeningSettings short_max;
  short_max.max_suppress_ns = 30 * kS;  // ceiling 1500: never above 2000
  EXPECT_NE(settings_error(short_max).find("max_suppress is too short"), std::string::npos);
  DampeningSettings no_half_life;
  no_half_life.half_life_ns = 0;
  EXPECT_EQ(settings_error(no_half_life), "flap dampening: half_life must be above 0");
}

}  // namespace
}  // namespace braid::health
