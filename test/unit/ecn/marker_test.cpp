#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ecn/ecn_marker.hpp"

namespace braid::ecn {
namespace {

constexpr EcnProfile kProfile{128, 512, 100};
constexpr int kDecisions = 100'000;
constexpr int kBurst = 32;

// The fraction of kDecisions marked at `depth`, in bursts of kBurst as a worker decides.
double marked_fraction(EcnMarker& marker, std::uint32_t depth) {
  int marked = 0;
  for (int i = 0; i < kDecisions; ++i) {
    if (i % kBurst == 0) marker.begin_burst(depth);
    marked += marker.decide() ? 1 : 0;
  }
  return static_cast<double>(marked) / kDecisions;
}

TEST(EcnMarker, TheMarkedFractionFollowsTheProfile) {
  EcnMarker marker(kProfile, 42);
  for (std::uint32_t depth : {0u, 128u, 129u, 160u, 224u, 320u, 416u, 500u, 512u, 513u, 1024u}) {
    const double p = mark_probability(kProfile, depth);
    // Five standard deviations of a binomial fraction over kDecisions: a false alarm about once
    // in 3.5 million runs, and the seed is fixed.
    const double tolerance = 5 * std::sqrt(p * (1 - p) / kDecisions);
    EXPECT_NEAR(marked_fraction(marker, depth), p, tolerance) << "depth " << depth;
  }
}

TEST(EcnMarker, ACustomRampIsFollowedToo) {
  const EcnProfile steep{10, 20, 800};
  EcnMarker marker(steep, 7);
  for (std::uint32_t depth = 10; depth <= 21; ++depth) {
    const double p = mark_probability(steep, depth);
    EXPECT_NEAR(marked_fraction(marker, depth), p, 5 * std::sqrt(p * (1 - p) / kDecisions))
        << "depth " << depth;
  }
}

TEST(EcnMarker, TheSameSeedMakesTheSameDecisions) {
  EcnMarker a(kProfile, 1234);
  EcnMarker b(kProfile, 1234);
  EcnMarker other(kProfile, 1235);
  int differences = 0;
  for (int i = 0; i < 10'000; ++i) {
    if (i % kBurst == 0) {
      a.begin_burst(320);
      b.begin_burst(320);
      other.begin_burst(320);
    }
    const bool decision = a.decide();
    ASSERT_EQ(decision, b.decide()) << i;
    differences += decision != other.decide() ? 1 : 0;
  }
  EXPECT_GT(differences, 100);  // about 2 * 0.05 * 0.95 * 10000 = 950
}

TEST(EcnMarker, NoRandomNumberIsDrawnOutsideTheRamp) {
  // A marker that also saw bursts below kmin and above kmax decides the ramp's packets exactly as
  // one that saw only the ramp: the other bursts drew nothing.
  EcnMarker ramp_only(kProfile, 99);
  EcnMarker mixed(kProfile, 99);
  for (int burst = 0; burst < 1000; ++burst) {
    mixed.begin_burst(burst % 2 == 0 ? 10 : 600);
    for (int i = 0; i < kBurst; ++i)
      ASSERT_EQ(mixed.decide(), burst % 2 != 0);
    ramp_only.begin_burst(400);
    mixed.begin_burst(400);
    for (int i = 0; i < kBurst; ++i)
      ASSERT_EQ(ramp_only.decide(), mixed.decide()) << burst << " " << i;
  }
}

TEST(EcnMarker, TheThresholdIsTakenOncePerBurst) {
  EcnMarker marker(kProfile, 5);
  marker.begin_burst(600);
  EXPECT_EQ(marker.threshold(), kAlwaysMark);
  marker.begin_burst(320);
  EXPECT_EQ(marker.threshold(), mark_threshold(kProfile, 320));
  marker.begin_burst(0);
  EXPECT_EQ(marker.threshold(), 0u);
  EXPECT_FALSE(marker.decide());
}

}  // namespace
}  // namespace braid::ecn
