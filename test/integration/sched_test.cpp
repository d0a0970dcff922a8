// The scheduler on real ring ports: a congested member (simulated PFC pauses) loses weight, the
// table follows flowlet by flowlet, and no flow is reordered.
#include <gtest/gtest.h>

#include "bond_rig.hpp"
#include "common/clock.hpp"

namespace braid::test {
namespace {

TEST(AdaptiveBond, ACongestedMemberLosesWeightAndNoFlowIsReordered) {
  BondRig rig(4,
              ", mode: static, buckets: 4096, scheduler: {policy: adaptive, period_ms: 5, "
              "flowlet_gap_us: 200, congestion: {source: sim, sim_pause_permille: [0, 0, 0, 500]}}",
              512);
  rig.engine().start();
  // 500 kpps over 512 flows: each flow sends every ~1 ms, so its bucket is idle for longer than
  // the flowlet gap between packets and the scheduler has flowlets to move.
  rig.run_at_rate(500'000, 400'000'000);
  rig.settle();
  rig.engine().stop();
  const sched::Snapshot snap = rig.engine().bond_scheduler(0).snapshot();
  EXPECT_EQ(snap.policy, sched::PolicyKind::kAdaptive);
  EXPECT_NEAR(snap.members[3].factor_permille, 500, 60);
  EXPECT_EQ(snap.members[0].factor_permille, 1000u);
  ASSERT_FALSE(snap.history.empty());
  EXPECT_NE(snap.history.front().cause.find("paused"), std::string::npos);
  EXPECT_GT(snap.moves, 0u);
  EXPECT_EQ(rig.tracker().reordered(), 0u);
  EXPECT_LT(rig.received(3), rig.received(0));
}

}  // namespace
}  // namespace braid::test
