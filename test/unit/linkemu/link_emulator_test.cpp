#include "linkemu/link_emulator.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "linkemu/link_registry.hpp"

namespace braid::linkemu {
namespace {

constexpr std::uint64_t kUs = 1'000;
constexpr std::uint64_t kMs = 1'000'000;

LinkSettings one_mpps(std::uint32_t queue = 1024) {
  LinkSettings settings;
  settings.rate_pps = 1'000'000;  // one packet per microsecond
  settings.queue_packets = queue;
  settings.latency_ns = 10 * kUs;
  return settings;
}

struct Polled {
  std::vector<Delivery<int>> arrived;
  std::vector<int> lost;
};

Polled poll(LinkEmulator<int>& link, std::uint64_t now_ns) {
  Polled out;
  link.poll(now_ns, out.arrived, out.lost);
  return out;
}

TEST(LinkEmulator, PacketsLeaveAtTheLinkRateAndArriveAfterTheLatency) {
  LinkEmulator<int> link(one_mpps());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(link.offer(0, i));
  EXPECT_EQ(link.queue_depth(), 5u);
  EXPECT_TRUE(poll(link, 2500).arrived.empty());
  EXPECT_EQ(link.queue_depth(), 3u);  // two sent, one being sent
  // The first packet takes 1 us to send and then 10 us to arrive.
  EXPECT_TRUE(poll(link, 11 * kUs - 1).arrived.empty());
  const Polled first = poll(link, 11 * kUs);
  ASSERT_EQ(first.arrived.size(), 1u);
  EXPECT_EQ(first.arrived[0].tag, 0);
  EXPECT_EQ(first.arrived[0].time_ns, 11 * kUs);
  EXPECT_EQ(link.queue_depth(), 0u);  // all sent by 5 us, four still on the wire
  EXPECT_EQ(link.in_flight(), 4u);
  const Polled rest = poll(link, 20 * kUs);
  ASSERT_EQ(rest.arrived.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(rest.arrived[i].tag, i + 1);
    EXPECT_EQ(rest.arrived[i].time_ns, (12 + i) * kUs);
  }
  EXPECT_EQ(link.in_flight(), 0u);
  EXPECT_EQ(link.counters().sent, 5u);
}

TEST(LinkEmulator, APauseHoldsTheQueueAndCountsAsPausedTime) {
  LinkEmulator<int> link(one_mpps());
  link.pause_for(0, 100 * kUs);
  for (int i = 0; i < 3; ++i)
    link.offer(0, i);
  EXPECT_TRUE(poll(link, 99 * kUs).arrived.empty());
  EXPECT_EQ(link.queue_depth(), 3u);  // nothing leaves while paused
  EXPECT_TRUE(poll(link, 110 * kUs).arrived.empty());
  EXPECT_EQ(link.queue_depth(), 0u);  // sent from 100 us on, not arrived yet
  const Polled out = poll(link, 200 * kUs);
  ASSERT_EQ(out.arrived.size(), 3u);
  EXPECT_EQ(out.arrived[0].time_ns, 111 * kUs);
  const sched::CongestionCounters c = link.congestion();
  EXPECT_EQ(c.pause_frames, 1u);
  EXPECT_EQ(c.pause_duration_us, 100u);
  EXPECT_EQ(c.tx_packets, 3u);
}

TEST(LinkEmulator, APeriodicPauseHalvesWhatASaturatedLinkCarries) {
  LinkEmulator<int> link(one_mpps(100'000));
  link.pause_periodically(0, 1 * kMs, 500 * kUs);
  for (int i = 0; i < 20'000; ++i)
    link.offer(0, i);
  std::size_t arrived = 0;
  for (std::uint64_t t = 0; t < 10 * kMs; t += 37 * kUs)
    arrived += poll(link, t).arrived.size();
  arrived += poll(link, 10 * kMs).arrived.size();
  // 10 windows of 500 us paused, 10 of 500 us at 1 packet per us (the last few still in flight).
  EXPECT_EQ(link.counters().sent, 5000u);
  EXPECT_EQ(arrived, 5000u - 10u);  // the last 10 us of sending is still on the wire
  EXPECT_EQ(link.counters().pause_frames, 10u);
  EXPECT_EQ(link.counters().pause_ns, 5 * kMs);
}

TEST(LinkEmulator, PausesThatOverlapAreCountedOnce) {
  LinkEmulator<int> link(one_mpps());
  link.pause_periodically(0, 1 * kMs, 500 * kUs);
  poll(link, 100 * kUs);
  link.pause_for(100 * kUs, 200 * kUs);  // inside the running window: nothing new
  link.pause_for(400 * kUs, 300 * kUs);  // runs past it, to 700 us
  poll(link, 1 * kMs - 1);
  EXPECT_EQ(link.counters().pause_ns, 700 * kUs);
  link.stop_pausing();  // before the window at 1 ms began: it never does
  poll(link, 5 * kMs);
  EXPECT_EQ(link.counters().pause_ns, 700 * kUs);
  EXPECT_EQ(link.counters().pause_frames, 2u);
}

TEST(LinkEmulator, APfcPauseCountsOnItsPriorityAndALinkLevelOneOnAll) {
  LinkEmulator<int> link(one_mpps());
  link.pause_for(0, 100 * kUs, pfc_priority(3));
  poll(link, 200 * kUs);
  link.pause_for(200 * kUs, 50 * kUs);  // 802.3x: every priority
  poll(link, 300 * kUs);
  const LinkCounters& c = link.counters();
  EXPECT_EQ(c.pause_frames, 2u);
  EXPECT_EQ(c.pause_ns, 150 * kUs);
  EXPECT_EQ(c.priority_pause_frames[3], 2u);
  EXPECT_EQ(c.priority_pause_ns[3], 150 * kUs);
  EXPECT_EQ(c.priority_pause_frames[0], 1u);
  EXPECT_EQ(c.priority_pause_ns[0], 50 * kUs);
  const sched::CongestionCounters counters = link.congestion();
  EXPECT_EQ(counters.priority_frames_read, 0xFF);  // the link counts every priority
  EXPECT_EQ(counters.priority_pause_duration_us[3], 150u);
  EXPECT_EQ(counters.priority_pause_duration_us[0], 50u);
  // A pattern on priority 0 alone.
  LinkEmulator<int> zero(one_mpps());
  zero.pause_periodically(0, 1 * kMs, 500 * kUs, pfc_priority(0));
  poll(zero, 3 * kMs);
  EXPECT_EQ(zero.counters().priority_pause_ns[0], 1500 * kUs);
  EXPECT_EQ(zero.counters().priority_pause_ns[3], 0u);
}

// One queue (a member's TX queue in braid): a PFC pause on priority 3 holds the priority-0
// packets behind it too. A queue per priority (a NIC with a queue per traffic class): priority 0
// keeps sending at the link's rate while priority 3 waits out the pause. Either way each
// priority's packets sent are counted (tx_prio<N>_packets).
TEST(LinkEmulator, APfcPauseHoldsOnlyItsPriorityWhenEachHasItsOwnQueue) {
  for (const bool per_priority : {false, true}) {
    LinkSettings settings = one_mpps();
    settings.queue_per_priority = per_priority;
    LinkEmulator<int> link(settings);
    link.pause_for(0, 100 * kUs, pfc_priority(3));
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(link.offer(0, i, 3));
      ASSERT_TRUE(link.offer(0, 100 + i, 0));
    }
    const Polled early = poll(link, 50 * kUs);
    const sched::CongestionCounters paused = link.congestion();
    EXPECT_EQ(paused.tx_packets_on(3), 0u);
    EXPECT_EQ(paused.tx_packets_on(0), per_priority ? 10u : 0u) << "per priority " << per_priority;
    EXPECT_EQ(early.arrived.size(), per_priority ? 10u : 0u);
    for (const Delivery<int>& delivery : early.arrived)
      EXPECT_GE(delivery.tag, 100);
    const Polled late = poll(link, 300 * kUs);
    const sched::CongestionCounters after = link.congestion();
    EXPECT_EQ(after.tx_packets_on(3), 10u);
    EXPECT_EQ(after.tx_packets_on(0), 10u);
    EXPECT_EQ(after.tx_packets, 20u);
    EXPECT_EQ(early.arrived.size() + late.arrived.size(), 20u);
    EXPECT_EQ(link.queue_depth(), 0u);
  }
  // Each priority's queue has its own room.
  LinkSettings small = one_mpps(4);
  small.queue_per_priority = true;
  LinkEmulator<int> link(small);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(link.offer(0, i, 3));
  EXPECT_FALSE(link.offer(0, 9, 3));
  EXPECT_TRUE(link.offer(0, 10, 0));
  EXPECT_EQ(link.queue_depth(), 5u);
  std::vector<int> held;
  link.take_all(held);
  EXPECT_EQ(held.size(), 5u);
}

TEST(LinkEmulator, AnIdleLinkPausedForHoursStillCountsEveryWindowOnce) {
  LinkEmulator<int> link(one_mpps());
  link.pause_periodically(0, 1 * kMs, 500 * kUs);
  // Idle for 20 s of pauses, polled every 10 ms: each poll only looks at windows not yet done.
  for (std::uint64_t t = 10 * kMs; t <= 20'000 * kMs; t += 10 * kMs) {
    poll(link, t);
    ASSERT_LE(link.pauses_pending(), 1u) << "at " << t / kMs << " ms";
  }
  EXPECT_EQ(link.counters().pause_frames, 20'000u);
  EXPECT_EQ(link.counters().pause_ns, 10'000 * kMs);
  // Still a working link: a packet offered during a window waits for its end.
  link.offer(20'000 * kMs + 100 * kUs, 1);
  const Polled out = poll(link, 20'001 * kMs);
  ASSERT_EQ(out.arrived.size(), 1u);
  EXPECT_EQ(out.arrived[0].time_ns, 20'000 * kMs + 500 * kUs + 1 * kUs + 10 * kUs);
}

TEST(LinkEmulator, AFullQueueRefusesPacketsAndReportsThemAsDiscards) {
  LinkEmulator<int> link(one_mpps(4));
  int accepted = 0;
  for (int i = 0; i < 10; ++i)
    accepted += link.offer(0, i) ? 1 : 0;
  EXPECT_EQ(accepted, 4);
  EXPECT_EQ(link.congestion().discards, 6u);
  EXPECT_EQ(link.counters().offered, 10u);
}

TEST(LinkEmulator, EveryPacketSentArrivesOrIsReportedLost) {
  LinkSettings settings = one_mpps(20'000);
  settings.loss = 0.3;
  settings.seed = 42;
  LinkEmulator<int> link(settings);
  for (int i = 0; i < 10'000; ++i)
    link.offer(0, i);
  const Polled out = poll(link, 1'000 * kMs);
  EXPECT_EQ(out.arrived.size() + out.lost.size(), 10'000u);
  EXPECT_NEAR(static_cast<double>(out.lost.size()), 3000.0, 300.0);
  EXPECT_EQ(link.counters().lost, out.lost.size());
}

TEST(LinkEmulator, TearDownHandsBackEverythingHeld) {
  LinkEmulator<int> link(one_mpps());
  for (int i = 0; i < 8; ++i)
    link.offer(0, i);
  poll(link, 3 * kUs);  // three on the wire, five queued
  std::vector<int> held;
  link.take_all(held);
  EXPECT_EQ(held.size(), 8u);
  EXPECT_EQ(link.in_flight(), 0u);
}

TEST(LinkRegistry, FindsTheLinkAttachedToAPortUntilItIsDetached) {
  std::uint32_t waiting = 5;  // in the port's ring, not yet taken by the link
  LinkPublication link([&waiting] { return waiting; });
  LinkCounters counters;
  counters.sent = 10;
  counters.dropped_queue = 2;
  counters.pause_frames = 3;
  counters.pause_ns = 4'000;
  link.publish(7, counters);
  EXPECT_FALSE(attached_link(9).has_value());
  attach_link(9, &link);
  const std::optional<LinkReading> reading = attached_link(9);
  ASSERT_TRUE(reading.has_value());
  EXPECT_EQ(reading->queue_depth, 12u);
  waiting = 0;
  EXPECT_EQ(attached_link(9)->queue_depth, 7u);
  EXPECT_EQ(reading->congestion.tx_packets, 10u);
  EXPECT_EQ(reading->congestion.discards, 2u);
  EXPECT_EQ(reading->congestion.pause_duration_us, 4u);
  LinkPublication other(nullptr);
  detach_link(9, &other);  // not the attached one: no effect
  EXPECT_TRUE(attached_link(9).has_value());
  detach_link(9, &link);
  EXPECT_FALSE(attached_link(9).has_value());
}

}  // namespace
}  // namespace braid::linkemu
