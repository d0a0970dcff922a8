// The scheduler on real ring ports: a congested member (simulated PFC pauses) loses weight, the
// table follows flowlet by flowlet, and no flow is reordered.
#include <gtest/gtest.h>
#include <rte_log.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "bond_rig.hpp"
#include "common/clock.hpp"
#include "log_capture.hpp"
#include "sched/dpdk/bond_scheduler.hpp"

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

// A congestion source as slow as a NIC whose firmware takes a millisecond per statistics query.
class SlowSource final : public congestion::Source {
 public:
  std::string_view name() const override { return "slow"; }
  sched::CongestionCounters read(std::size_t, std::uint64_t) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {};
  }
};

TEST(SchedulerControlCost, ASlowCongestionSourceIsMeasuredAndNamedOnce) {
  BondRig rig(2, ", mode: static");
  sched::Settings settings;
  settings.policy = sched::PolicyKind::kAdaptive;
  settings.weights = {1, 1};
  settings.period_ns = 5'000'000;
  sched::BondScheduler scheduler(rig.bond(), settings, std::make_unique<SlowSource>());
  LogCapture log;
  std::uint64_t now = monotonic_ns();
  scheduler.start(now);
  for (int period = 0; period < 3; ++period) {
    now += settings.period_ns;
    scheduler.poll(now);
  }
  // Two members, a millisecond each: 2 ms of a 5 ms period.
  EXPECT_GE(scheduler.counters_read_ns(), 2'000'000u);
  EXPECT_GE(scheduler.counters_read_max_ns(), scheduler.counters_read_ns());
  const std::string text = log.text();
  const std::string line = "reading the slow congestion counters of 2 members took";
  ASSERT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find(line), text.rfind(line)) << "logged more than once:\n" << text;
}

}  // namespace
}  // namespace braid::test
