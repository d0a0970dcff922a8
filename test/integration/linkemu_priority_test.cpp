// Issue 16, per-priority PFC input: two adaptive classes on one bond, one riding on PFC priority 3
// and one on priority 0. The peer pauses member 3 on priority 3 only: the priority-3 class lowers
// member 3's weight and moves buckets off it; the priority-0 class reads priority 0's pause
// counter, which never moved, so its weights stay as they were and it keeps its share of member 3.
// The emulated link has one queue, so priority-0 frames wait out the pauses too (braid's member TX
// queue is one queue as well); the load is low enough that it never overflows, so no discard tells
// the priority-0 class anything. Nothing is lost or reordered.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "bond_rig.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

TEST(EmulatedLinks, APausedPriorityLowersOnlyTheWeightsOfTheClassOnIt) {
  linkemu::LinkSettings link;
  link.rate_pps = 20'000;  // paused 750 us of every ms: 5 kpps, above the 3 kpps offered it
  link.queue_packets = 128;
  link.latency_ns = 50'000;
  // Flows 0..127 (source ports 1024..1151) are class roce, the rest best_effort.
  BondRig rig(4,
              ", mode: static, buckets: 1024, lldp: off, scheduler: {policy: adaptive, "
              "congestion: {source: sim, priority: 3}}, classes: {default: best_effort, list: "
              "[{name: roce, priority: 3}, {name: best_effort, priority: 0}], rules: [{class: "
              "roce, src_port: \"1024-1151\"}]}",
              256, link);
  ASSERT_EQ(rig.bond().class_count(), 2u);
  const sched::BondScheduler& scheduler = rig.engine().bond_scheduler(0);
  EXPECT_EQ(scheduler.class_priority(0), 3u);
  EXPECT_EQ(scheduler.class_priority(1), 0u);
  rig.engine().start();
  // Both classes balance their measured load first (adaptive moves idle buckets to the shares).
  rig.run_at_rate(12'000, 600 * kMs);
  const std::uint64_t best_effort_changes = scheduler.snapshot(1).weight_changes;
  const auto roce_on_3 = rig.buckets_on(0, 3);

  rig.link(3).pause_periodically(1 * kMs, 750'000, linkemu::pfc_priority(3));
  rig.run_at_rate(12'000, 1500 * kMs);
  const sched::Snapshot roce = scheduler.snapshot(0);
  const sched::Snapshot best_effort = scheduler.snapshot(1);
  rig.link(3).stop_pausing();
  rig.settle();
  rig.engine().stop();
  rig.drain_links();

  EXPECT_GT(roce.members[3].score, 0.0) << "the roce class saw no pauses on priority 3";
  EXPECT_LT(roce.members[3].weight, roce.members[0].weight)
      << "the roce class did not lower member 3's weight";
  EXPECT_LT(rig.buckets_on(0, 3), roce_on_3) << "no roce bucket left member 3";
  EXPECT_EQ(best_effort.members[3].score, 0.0) << "priority 3's pauses reached priority 0";
  for (std::size_t m = 0; m < 4; ++m)
    EXPECT_EQ(best_effort.members[m].weight, best_effort.members[0].weight) << "member " << m;
  EXPECT_EQ(best_effort.weight_changes, best_effort_changes);
  // Adaptive spreads measured load, so each class's share of the packets on member 3 is what
  // its weights say: about 7% for roce at its lowered weight, a quarter for best_effort. The
  // best_effort table still moves idle buckets to even out its load (it was not pauses that moved
  // them: its weights never changed).
  const auto load_share = [](const sched::Snapshot& snap, std::size_t member) {
    double total = 0;
    for (const sched::MemberSnapshot& m : snap.members)
      total += m.load;
    return total > 0 ? snap.members[member].load / total : 0.0;
  };
  std::printf("member 3 carries %.1f%% of roce (weight %u), %.1f%% of best_effort (weight %u)\n",
              100 * load_share(roce, 3), roce.members[3].weight, 100 * load_share(best_effort, 3),
              best_effort.members[3].weight);
  EXPECT_LT(load_share(roce, 3), 0.15);
  EXPECT_GT(load_share(best_effort, 3), 0.15);
  const linkemu::RingLinkStats link3 = rig.link(3).stats();
  EXPECT_GT(link3.pause_frames, 0u);
  EXPECT_EQ(link3.dropped_queue, 0u) << "member 3's queue overflowed: discards are every class's";
  EXPECT_EQ(rig.tracker().reordered(), 0u);
  EXPECT_EQ(rig.tracker().foreign(), 0u);
  const datapath::CounterTotals totals = rig.engine().totals();
  std::uint64_t received = 0;
  for (std::size_t m = 0; m < 4; ++m)
    received += rig.received(m);
  EXPECT_EQ(rig.links_in_flight(), 0u);
  EXPECT_EQ(rig.injected(), received + totals.dropped() + rig.link_drops());
}

}  // namespace
}  // namespace braid::test
