#include <gtest/gtest.h>

#include "ecn/ecn_profile.hpp"

namespace braid::ecn {
namespace {

EcnProfile profile(std::uint32_t kmin, std::uint32_t kmax, std::uint32_t pmax) {
  return {kmin, kmax, pmax};
}

TEST(EcnProfile, TheDefaultsAreValid) {
  EXPECT_EQ(profile_error({}), "");
  EXPECT_EQ(profile_error(profile(0, 1, 0)), "");
  EXPECT_EQ(profile_error(profile(0, kMaxQueueDescriptors, 1000)), "");
}

TEST(EcnProfile, InconsistentProfilesSayWhatIsWrong) {
  EXPECT_EQ(profile_error(profile(200, 100, 100)),
            "ecn: kmax (100 descriptors) must be above kmin (200); for one marking threshold set "
            "pmax to 0 and kmax to the threshold");
  EXPECT_NE(profile_error(profile(100, 100, 100)), "");
  EXPECT_EQ(profile_error(profile(100, 70000, 100)),
            "ecn: kmax (70000 descriptors) must be at most 65535, the largest TX ring");
  EXPECT_EQ(profile_error(profile(100, 200, 1001)),
            "ecn: pmax (1001 permille) must be at most 1000 (every packet)");
}

TEST(EcnProfile, NothingAtOrBelowKmin) {
  const EcnProfile p = profile(128, 512, 100);
  EXPECT_EQ(mark_threshold(p, 0), 0u);
  EXPECT_EQ(mark_threshold(p, 127), 0u);
  EXPECT_EQ(mark_threshold(p, 128), 0u);
  EXPECT_GT(mark_threshold(p, 129), 0u);
}

TEST(EcnProfile, RisesLinearlyToPmaxAtKmax) {
  const EcnProfile p = profile(128, 512, 100);
  EXPECT_NEAR(mark_probability(p, 129), 0.1 / 384, 1e-9);
  EXPECT_NEAR(mark_probability(p, 320), 0.05, 1e-9);  // half way
  EXPECT_NEAR(mark_probability(p, 416), 0.075, 1e-9);
  EXPECT_EQ(mark_threshold(p, 512), kAlwaysMark / 10);  // floor(0.1 * 2^32)
  for (std::uint32_t depth = 129; depth <= 512; ++depth) {
    EXPECT_GE(mark_threshold(p, depth), mark_threshold(p, depth - 1)) << depth;
    EXPECT_NEAR(mark_probability(p, depth), 0.1 * (depth - 128) / 384.0, 1e-9) << depth;
  }
}

TEST(EcnProfile, EveryPacketAboveKmax) {
  const EcnProfile p = profile(128, 512, 100);
  EXPECT_EQ(mark_threshold(p, 513), kAlwaysMark);
  EXPECT_EQ(mark_threshold(p, kMaxQueueDescriptors), kAlwaysMark);
  EXPECT_EQ(mark_probability(p, 513), 1.0);
}

TEST(EcnProfile, PmaxOfAThousandReachesEveryPacketAtKmax) {
  const EcnProfile p = profile(0, 1000, 1000);
  EXPECT_EQ(mark_threshold(p, 1000), kAlwaysMark);
  EXPECT_NEAR(mark_probability(p, 250), 0.25, 1e-9);
}

TEST(EcnProfile, PmaxZeroIsAStepAtKmax) {
  const EcnProfile p = profile(0, 64, 0);  // DCTCP's K = 64
  EXPECT_EQ(mark_threshold(p, 1), 0u);
  EXPECT_EQ(mark_threshold(p, 64), 0u);
  EXPECT_EQ(mark_threshold(p, 65), kAlwaysMark);
}

TEST(EcnProfile, TheWidestProfileDoesNotOverflow) {
  const EcnProfile p = profile(0, kMaxQueueDescriptors, 1000);
  EXPECT_EQ(mark_threshold(p, kMaxQueueDescriptors), kAlwaysMark);
  EXPECT_NEAR(mark_probability(p, kMaxQueueDescriptors - 1), 1.0 - 1.0 / kMaxQueueDescriptors,
              1e-9);
}

}  // namespace
}  // namespace braid::ecn
