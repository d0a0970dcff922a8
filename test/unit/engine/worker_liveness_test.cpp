// Worker liveness: the alarm's timeline against an injected clock and counters.
#include "engine/worker_liveness.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace braid::engine {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

// Two workers checked every period until `until_ns`; worker 1 stops moving in [from, to).
struct Timeline {
  WorkerLiveness liveness{100 * kMs, 2};
  std::vector<std::uint64_t> loops{0, 0};
  std::vector<WorkerLiveness::Event> events;
  std::vector<std::uint64_t> event_ns;
  std::uint64_t now_ns = 0;

  void run(std::uint64_t until_ns, std::uint64_t stall_from_ns, std::uint64_t stall_to_ns) {
    while (now_ns < until_ns) {
      now_ns = liveness.next_check_ns();
      loops[0] += 1000;
      if (now_ns < stall_from_ns || now_ns >= stall_to_ns) loops[1] += 1000;
      for (const auto& event : liveness.check(loops, now_ns)) {
        events.push_back(event);
        event_ns.push_back(now_ns);
      }
    }
  }
};

TEST(WorkerLiveness, ChecksEveryQuarterOfTheLimit) {
  WorkerLiveness liveness(100 * kMs, 1);
  liveness.restart(5 * kMs);
  EXPECT_EQ(liveness.next_check_ns(), 5 * kMs);
  const std::vector<std::uint64_t> loops{1};
  liveness.check(loops, 5 * kMs);
  EXPECT_EQ(liveness.next_check_ns(), 30 * kMs);
  EXPECT_EQ(WorkerLiveness(2 * kMs, 1).period_ns(), 1 * kMs) << "never more often than 1 ms";
}

TEST(WorkerLiveness, AStallLongerThanTheLimitRaisesOneAlarmAndItsEndClearsIt) {
  Timeline t;
  t.liveness.restart(0);
  t.run(1000 * kMs, 300 * kMs, 700 * kMs);
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].worker, 1u);
  EXPECT_TRUE(t.events[0].stalled);
  // Last seen moving at the 275 ms check; still for more than 100 ms at the 400 ms one.
  EXPECT_EQ(t.event_ns[0], 400 * kMs);
  EXPECT_EQ(t.events[0].still_ns, 125 * kMs);
  EXPECT_FALSE(t.events[1].stalled);
  EXPECT_EQ(t.event_ns[1], 700 * kMs);
  EXPECT_EQ(t.events[1].still_ns, 425 * kMs);
  const WorkerLiveness::Worker& w1 = t.liveness.workers()[1];
  EXPECT_FALSE(w1.stalled);
  EXPECT_EQ(w1.stalls, 1u);
  EXPECT_EQ(w1.last_stall_ns, 425 * kMs);
  EXPECT_EQ(w1.longest_stall_ns, 425 * kMs);
  EXPECT_EQ(t.liveness.workers()[0].stalls, 0u);
}

TEST(WorkerLiveness, WhileStalledTheFlagAndTheStillTimeShow) {
  Timeline t;
  t.liveness.restart(0);
  t.run(500 * kMs, 300 * kMs, 2000 * kMs);
  EXPECT_TRUE(t.liveness.workers()[1].stalled);
  EXPECT_EQ(t.liveness.workers()[1].stalled_since_ns, 275 * kMs);
  EXPECT_EQ(t.liveness.still_ns(1), 225 * kMs);
  EXPECT_EQ(t.liveness.stalled_count(), 1u);
}

TEST(WorkerLiveness, AStallAtTheLimitIsNoAlarm) {
  Timeline t;
  t.liveness.restart(0);
  // Not moving at the checks of 325, 350, 375 and 400 ms: still for exactly 100 ms, not more.
  t.run(1000 * kMs, 325 * kMs, 425 * kMs);
  EXPECT_TRUE(t.events.empty());
}

TEST(WorkerLiveness, ALateCheckIsNoStallWhenTheCounterMoved) {
  // The protocol loop itself was held 500 ms: both counters moved meanwhile, so no alarm.
  WorkerLiveness liveness(100 * kMs, 1);
  liveness.restart(0);
  EXPECT_TRUE(liveness.check(std::vector<std::uint64_t>{10}, 0).empty());
  EXPECT_TRUE(liveness.check(std::vector<std::uint64_t>{20}, 500 * kMs).empty());
  EXPECT_EQ(liveness.check(std::vector<std::uint64_t>{20}, 601 * kMs).size(), 1u);
}

TEST(WorkerLiveness, ARestartForgetsAStallWithoutAnEvent) {
  Timeline t;
  t.liveness.restart(0);
  t.run(500 * kMs, 100 * kMs, 5000 * kMs);
  ASSERT_TRUE(t.liveness.workers()[1].stalled);
  t.liveness.restart(t.now_ns);  // the engine stopped and started again
  EXPECT_FALSE(t.liveness.workers()[1].stalled);
  EXPECT_EQ(t.liveness.workers()[1].stalls, 1u) << "the count stays";
  // The same, unmoved counter is a new baseline: no alarm until another full limit.
  EXPECT_TRUE(t.liveness.check(t.loops, t.now_ns).empty());
  EXPECT_TRUE(t.liveness.check(t.loops, t.now_ns + 100 * kMs).empty());
  EXPECT_EQ(t.liveness.check(t.loops, t.now_ns + 101 * kMs).size(), 2u) << "neither counter moved";
}

}  // namespace
}  // namespace braid::engine
