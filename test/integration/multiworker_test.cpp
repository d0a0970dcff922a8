// Several workers on one bond (issue 19): a host ring port with one RX queue per worker (the rig
// plays RSS, flow f on queue f % workers), a bond of 4 ring-port members, workers on lcores 1..4
// that EAL maps onto the machine's two CPUs (--lcores=0@0,1@1,2@1,3@0,4@1, main() below), so
// they time-share them as an overloaded machine would. Assertions are about generations, counts
// and order, never time: a worker may be descheduled for milliseconds at any point.
#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "bond_rig.hpp"
#include "common/clock.hpp"
#include "eal_environment.hpp"
#include "flow/dpdk/mbuf_hash.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kPackets = 40'000;
constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kPatienceNs = 20'000 * kMs;  // what "never" means here

std::uint64_t worker_rx(BondRig& rig, std::size_t w) {
  return rig.engine().workers()[w]->counters.rx_packets[rig.host().port_id()].get();
}

// The bond table generation worker w acknowledged: the one it distributed on at its last drain
// tick (what held moves wait for, tx_queue_probe.hpp).
std::uint64_t acked(BondRig& rig, std::size_t w) {
  return rig.engine().workers()[w]->tx_probes[0]->reading(0).generation;
}

// Runs the control thread until every worker has acknowledged `generation`; the first worker
// that has not, or none.
std::optional<std::size_t> laggard_after_waiting(BondRig& rig, std::uint64_t generation) {
  const std::uint64_t deadline = monotonic_ns() + kPatienceNs;
  while (true) {
    std::optional<std::size_t> laggard;
    for (std::size_t w = 0; w < rig.engine().workers().size() && !laggard; ++w) {
      if (acked(rig, w) < generation) laggard = w;
    }
    if (!laggard || monotonic_ns() > deadline) return laggard;
    rig.pump(0);
  }
}

void expect_every_worker_forwarded(BondRig& rig, const std::vector<std::uint64_t>& before = {}) {
  for (std::size_t w = 0; w < rig.engine().workers().size(); ++w) {
    EXPECT_GT(worker_rx(rig, w), before.empty() ? 0 : before[w])
        << "worker " << w << " carried nothing: the flows did not spread over every worker";
  }
}

std::vector<std::uint64_t> every_worker_rx(BondRig& rig) {
  std::vector<std::uint64_t> rx;
  for (std::size_t w = 0; w < rig.engine().workers().size(); ++w)
    rx.push_back(worker_rx(rig, w));
  return rx;
}

void expect_balanced(engine::Engine& engine) {
  const datapath::CounterTotals totals = engine.totals();
  EXPECT_TRUE(totals.balanced()) << "rx " << totals.rx() << " tx " << totals.tx() << " dropped "
                                 << totals.dropped() << " to control " << totals.to_control
                                 << " in flight " << totals.buffered;
}

class MultiWorker : public ::testing::TestWithParam<unsigned> {};

INSTANTIATE_TEST_SUITE_P(Workers, MultiWorker, ::testing::Values(3u, 4u),
                         [](const ::testing::TestParamInfo<unsigned>& workers) {
                           return std::to_string(workers.param) + "workers";
                         });

TEST_P(MultiWorker, FailoverMovesEveryWorkerOffTheDeadMemberAndNoSurvivorFlow) {
  BondRig rig(4, ", mode: static", 4096, std::nullopt, GetParam());
  rig.engine().start();
  rig.send(kPackets);
  expect_every_worker_forwarded(rig);
  const std::vector<int> before = rig.tracker().members();
  const std::vector<std::uint64_t> rx_before = every_worker_rx(rig);

  rig.bond().set_member_admin(1, false, monotonic_ns());
  const std::uint64_t without_member1 = rig.bond().table()->generation;
  const std::optional<std::size_t> laggard = laggard_after_waiting(rig, without_member1);
  ASSERT_FALSE(laggard) << "worker " << *laggard << " never adopted table " << without_member1
                        << " (member 1 down); it acknowledged " << acked(rig, *laggard);
  // What was sent before the acknowledgements is on member 1's ring: take it; nothing after.
  rig.settle();
  const std::uint64_t on_member1 = rig.received(1);
  rig.send(kPackets);
  EXPECT_EQ(rig.received(1), on_member1)
      << "a packet left on member 1 after every worker acknowledged the table without it";
  expect_every_worker_forwarded(rig, rx_before);

  const std::vector<int> after = rig.tracker().members();
  std::size_t survivors_moved = 0, moved_off = 0;
  for (std::size_t f = 0; f < before.size(); ++f) {
    if (before[f] == 1) {
      EXPECT_NE(after[f], 1) << "flow " << f;
      ++moved_off;
    } else if (after[f] != before[f]) {
      ++survivors_moved;
    }
  }
  EXPECT_EQ(survivors_moved, 0u) << "flows on surviving members must not move";
  EXPECT_GT(moved_off, 0u);
  EXPECT_EQ(rig.received_total(), 2 * kPackets);
  rig.engine().stop();
  expect_balanced(rig.engine());
  EXPECT_EQ(rig.engine().totals().dropped(), 0u);
}

// Until every worker has acknowledged the last stop or start (at most 5 s).
bool await_acknowledged(BondRig& rig) {
  const std::uint64_t deadline = monotonic_ns() + 5'000'000'000ull;
  while (!rig.engine().workers_not_acknowledged().empty()) {
    if (monotonic_ns() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

TEST_P(MultiWorker, StopAndStartReachEveryWorker) {
  BondRig rig(4, ", mode: static", 4096, std::nullopt, GetParam());
  rig.engine().start();
  rig.send(kPackets / 4);
  expect_every_worker_forwarded(rig);

  // console `stop`: pause() spins at most 1 ms; workers sharing CPUs acknowledge later.
  ASSERT_TRUE(rig.engine().pause() || await_acknowledged(rig));
  for (std::size_t w = 0; w < rig.engine().workers().size(); ++w) {
    EXPECT_FALSE(rig.engine().workers()[w]->forwarding_seen.load())
        << "worker " << w << " acknowledged `stop` but still forwards";
  }
  const std::uint64_t forwarded = rig.received_total();
  rig.send(kPackets / 4);
  EXPECT_EQ(rig.received_total(), forwarded) << "a worker forwarded after `stop`";
  for (std::size_t w = 0; w < rig.engine().workers().size(); ++w) {
    EXPECT_GT(rig.engine()
                  .workers()[w]
                  ->counters.drops[static_cast<std::size_t>(datapath::DropReason::kStopped)]
                  .get(),
              0u)
        << "worker " << w << " dropped nothing as stopped: it never received after `stop`";
  }
  EXPECT_EQ(rig.engine().totals().drops[static_cast<std::size_t>(datapath::DropReason::kStopped)],
            kPackets / 4);

  ASSERT_TRUE(rig.engine().resume() || await_acknowledged(rig));  // console `start`
  const std::vector<std::uint64_t> rx_stopped = every_worker_rx(rig);
  rig.send(kPackets / 4);
  expect_every_worker_forwarded(rig, rx_stopped);
  EXPECT_EQ(rig.received_total(), forwarded + kPackets / 4) << "a worker did not start again";
  EXPECT_EQ(rig.tracker().reordered(), 0u);
  rig.engine().stop();
  expect_balanced(rig.engine());
}

TEST_P(MultiWorker, PerWorkerCountersSumToThePortCounters) {
  BondRig rig(4, ", mode: static", 4096, std::nullopt, GetParam());
  rig.engine().start();
  rig.send(kPackets);
  // And back: frames into every member, out of the host port, on whichever worker polls it.
  FlowSet back(64);
  for (std::size_t m = 0; m < 4; ++m) {
    for (std::uint32_t i = 0; i < 256; ++i) {
      rte_mbuf* frame = back.make(test_mempool(), i % 64);
      ASSERT_NE(frame, nullptr);
      ASSERT_EQ(rte_ring_enqueue(rig.member(m).to_port(), frame), 0);
    }
  }
  std::uint64_t returned = 0;
  const std::uint64_t deadline = monotonic_ns() + kPatienceNs;
  while (returned < 4 * 256 && monotonic_ns() < deadline) {
    rig.pump(0);
    rig.host().drain([&](const rte_mbuf*) { ++returned; });
  }
  EXPECT_EQ(returned, 4u * 256);
  rig.engine().stop();
  rig.drain_members();  // the control thread's frames on the members: LLDPDUs, shutdowns last

  const engine::Engine& engine = rig.engine();
  for (std::size_t p = 0; p < engine.port_count(); ++p) {
    const std::uint16_t id = engine.port(p).id();
    rte_eth_stats stats{};
    ASSERT_EQ(rte_eth_stats_get(id, &stats), 0);
    std::uint64_t rx = 0, tx = 0;
    for (const auto& worker : engine.workers()) {
      rx += worker->counters.rx_packets[id].get();
      tx += worker->counters.tx_packets[id].get();
      // Per queue: what each worker counted is what its own RX queues of the port received.
      std::uint64_t polled = 0;
      for (const engine::RxRoute& route : worker->routes) {
        if (route.port == id) polled += stats.q_ipackets[route.queue];
      }
      EXPECT_EQ(worker->counters.rx_packets[id].get(), polled)
          << "port " << engine.port(p).name() << ", worker " << worker->index;
    }
    EXPECT_EQ(rx, stats.ipackets) << "port " << engine.port(p).name();
    // A member port also sent the control thread's frames (its LLDPDUs): the rig counted them.
    std::uint64_t control = 0;
    for (std::size_t m = 0; m < 4; ++m) {
      if (rig.member(m).port_id() == id) control = rig.lldp_frames(m);
    }
    EXPECT_EQ(tx + control, stats.opackets) << "port " << engine.port(p).name();
  }
  for (std::size_t w = 0; w < engine.workers().size(); ++w) {
    std::uint64_t to_members = 0;
    for (std::size_t m = 0; m < 4; ++m)
      to_members += engine.workers()[w]->counters.tx_packets[rig.member(m).port_id()].get();
    EXPECT_GT(to_members, 0u) << "worker " << w << " sent nothing into the bond";
  }
  expect_balanced(rig.engine());
}

// A worker stuck inside its loop, between adopting a table and reporting quiescent: a TX
// callback on its own queue of every member (it runs in the worker, inside rte_eth_tx_burst,
// while the burst's table is in use) blocks for 50 ms and until the test lets it go.
struct Stall {
  unsigned worker = 0;
  std::atomic<bool> armed{false};
  std::atomic<bool> stalled{false};
  std::atomic<bool> release{false};
  static std::uint16_t callback(std::uint16_t, std::uint16_t, rte_mbuf**, std::uint16_t count,
                                void* user) {
    auto* self = static_cast<Stall*>(user);
    if (!self->armed.exchange(false)) return count;
    self->stalled.store(true);
    rte_delay_us_sleep(50'000);
    const std::uint64_t limit = monotonic_ns() + kPatienceNs;
    while (!self->release.load() && monotonic_ns() < limit)
      rte_delay_us_sleep(1'000);
    self->stalled.store(false);
    return count;
  }
  // On the worker's own TX queue of each of the rig's 4 members; detach() after the workers
  // stopped (one may be inside the callback).
  template <typename Rig>
  bool attach(Rig& rig) {
    for (std::size_t m = 0; m < 4; ++m) {
      const std::uint16_t port = rig.member(m).port_id();
      const rte_eth_rxtx_callback* added =
          rte_eth_add_tx_callback(port, static_cast<std::uint16_t>(worker), callback, this);
      if (added == nullptr) return false;
      callbacks.emplace_back(port, added);
    }
    return true;
  }
  void detach() {
    for (const auto& [port, added] : callbacks)
      rte_eth_remove_tx_callback(port, static_cast<std::uint16_t>(worker), added);
    callbacks.clear();
  }
  std::vector<std::pair<std::uint16_t, const rte_eth_rxtx_callback*>> callbacks;
};

TEST_P(MultiWorker, ADescheduledWorkerKeepsItsTableAndCatchesUpOnTheNewest) {
  const unsigned workers = GetParam();
  BondRig rig(4, ", mode: static", 4096, std::nullopt, workers);
  Stall stall;
  stall.worker = workers - 1;
  ASSERT_TRUE(stall.attach(rig));
  rig.engine().start();
  rig.send(kPackets / 4);
  stall.armed.store(true);
  const std::uint64_t deadline = monotonic_ns() + kPatienceNs;
  while (!stall.stalled.load() && monotonic_ns() < deadline)
    rig.pump();
  ASSERT_TRUE(stall.stalled.load()) << "worker " << stall.worker << " never sent";
  const std::uint64_t stalled_on = acked(rig, stall.worker);

  // The control side publishes five tables while the worker is away; the others adopt them all.
  for (int change = 0; change < 5; ++change) {
    rig.bond().set_member_admin(3, change % 2 != 0, monotonic_ns());
    rig.pump();
  }
  const std::uint64_t newest = rig.bond().table()->generation;
  EXPECT_GE(newest, stalled_on + 5);
  for (std::size_t w = 0; w + 1 < workers; ++w) {
    const std::uint64_t until = monotonic_ns() + kPatienceNs;
    while (acked(rig, w) < newest && monotonic_ns() < until)
      rig.pump();
    EXPECT_EQ(acked(rig, w), newest) << "worker " << w;
  }
  ASSERT_TRUE(stall.stalled.load());
  EXPECT_LE(acked(rig, stall.worker), stalled_on) << "a stalled worker acknowledged a table";
  // RCU: nothing retired since the worker's last quiescent state may be freed (ASan would also
  // see the worker read a freed table when it resumes).
  rig.pump(0);
  EXPECT_GE(rig.bond().shared().publisher->retired(), 5u)
      << "tables were freed while a worker that may read them was stalled";

  stall.release.store(true);
  const std::optional<std::size_t> laggard = laggard_after_waiting(rig, newest);
  EXPECT_FALSE(laggard) << "worker " << stall.worker << " never caught up on table " << newest
                        << "; it acknowledged " << acked(rig, stall.worker);
  const std::uint64_t until = monotonic_ns() + kPatienceNs;
  while (rig.bond().shared().publisher->retired() != 0 && monotonic_ns() < until)
    rig.pump(0);
  EXPECT_EQ(rig.bond().shared().publisher->retired(), 0u) << "old tables were never freed";
  rig.send(kPackets / 4);
  expect_every_worker_forwarded(rig);
  rig.engine().stop();
  stall.detach();
  expect_balanced(rig.engine());
  EXPECT_EQ(rig.engine().totals().dropped(), 0u);
}

// Worker liveness (issue 15): the same stall, held until the protocol loop's check raises the
// alarm for that worker, then released: the alarm clears and the stall's length is recorded.
// The limit is the shipped default (workers.stall_limit_ms, 100 ms).
TEST_P(MultiWorker, AStalledWorkerRaisesTheLivenessAlarmWithinTheLimitAndClearsItWhenItResumes) {
  const unsigned workers = GetParam();
  BondRig rig(4, ", mode: static", 4096, std::nullopt, workers);
  const engine::WorkerLiveness& liveness = rig.engine().liveness();
  const std::uint64_t limit_ns = liveness.stall_limit_ns();
  ASSERT_EQ(limit_ns, 100 * kMs) << "the default stall limit";
  Stall stall;
  stall.worker = workers - 1;
  ASSERT_TRUE(stall.attach(rig));
  rig.engine().start();
  rig.send(kPackets / 4);
  const engine::WorkerLiveness::Worker& alive = liveness.workers()[stall.worker];
  const std::uint64_t stalls_before = alive.stalls;
  stall.armed.store(true);
  std::uint64_t deadline = monotonic_ns() + kPatienceNs;
  while (!stall.stalled.load() && monotonic_ns() < deadline)
    rig.pump();
  ASSERT_TRUE(stall.stalled.load()) << "worker " << stall.worker << " never sent";
  const std::uint64_t began_ns = monotonic_ns();

  deadline = monotonic_ns() + kPatienceNs;
  while (!alive.stalled && monotonic_ns() < deadline)
    rig.pump(0);
  ASSERT_TRUE(alive.stalled) << "no alarm for worker " << stall.worker;
  ASSERT_TRUE(stall.stalled.load()) << "the alarm came after the worker resumed";
  EXPECT_EQ(alive.stalls, stalls_before + 1);
  // Raised at the first check that found the counter still for more than the limit: after the
  // limit, and at most one check period (plus this thread's own descheduling) later.
  EXPECT_GT(alive.raised_ns - alive.stalled_since_ns, limit_ns);
  EXPECT_LE(alive.raised_ns - alive.stalled_since_ns, limit_ns + liveness.period_ns() + 50 * kMs);
  std::printf(
      "worker %u stalled: alarm %.1f ms after its counter was last seen moving, %.1f ms "
      "after this thread saw it stall (limit %.0f ms)\n",
      stall.worker, static_cast<double>(alive.raised_ns - alive.stalled_since_ns) / 1e6,
      (static_cast<double>(alive.raised_ns) - static_cast<double>(began_ns)) / 1e6,
      static_cast<double>(limit_ns) / 1e6);
  // Still raised while it stays stalled.
  const std::uint64_t hold_until = monotonic_ns() + 2 * limit_ns;
  while (monotonic_ns() < hold_until)
    rig.pump(0);
  EXPECT_TRUE(alive.stalled);
  EXPECT_GT(liveness.still_ns(stall.worker), 2 * limit_ns);

  const std::uint64_t last_moved_ns = alive.stalled_since_ns;  // cleared with the alarm
  const std::uint64_t released_ns = monotonic_ns();
  stall.release.store(true);
  deadline = monotonic_ns() + kPatienceNs;
  while (alive.stalled && monotonic_ns() < deadline)
    rig.pump(0);
  EXPECT_FALSE(alive.stalled) << "the alarm never cleared after worker " << stall.worker
                              << " resumed";
  EXPECT_EQ(alive.stalls, stalls_before + 1);
  EXPECT_GE(alive.last_stall_ns, released_ns - last_moved_ns)
      << "the stall's recorded length ends before the worker was let go";
  std::printf("worker %u ran again: stall of %.1f ms recorded\n", stall.worker,
              static_cast<double>(alive.last_stall_ns) / 1e6);
  rig.send(kPackets / 4);
  expect_every_worker_forwarded(rig);
  rig.engine().stop();
  EXPECT_FALSE(alive.stalled);
  stall.detach();
  expect_balanced(rig.engine());
}

// 20 kpps links (50 us a packet), 128 packets of queue, 50 us of latency.
linkemu::LinkSettings slow_link() {
  linkemu::LinkSettings link;
  link.rate_pps = 20'000;
  link.queue_packets = 128;
  link.latency_ns = 50'000;
  return link;
}

// Held moves (lib/sched/held_moves.hpp) with every bucket's flows spread over several workers:
// a paused member's busy buckets can only move by being held, each worker holds its own packets
// of the bucket, and the move may complete only once every worker acknowledged the hold (one
// that has not may still queue the bucket's packets behind the paused member's standing queue).
// Order is judged by arrival time at the links' far ends, as a partner sees it.
TEST_P(MultiWorker, HeldMovesKeepEveryFlowInOrderAcrossWorkers) {
  const unsigned workers = GetParam();
  constexpr std::uint32_t kFlows = 2048;
  constexpr std::uint32_t kBuckets = 256;
  BondRig rig(4,
              ", mode: static, buckets: 256, scheduler: {policy: adaptive, congestion: "
              "{source: sim}}",
              kFlows, slow_link(), workers);
  // Every bucket gets flows of at least two workers.
  FlowSet flows(kFlows);
  flow::FlowHasher hasher(flow::HashPolicy::l34);
  std::vector<std::set<unsigned>> workers_of_bucket(kBuckets);
  for (std::uint32_t f = 0; f < kFlows; ++f) {
    rte_mbuf* packet = flows.make(test_mempool(), f);
    ASSERT_NE(packet, nullptr);
    std::uint32_t hash = 0;
    flow::dpdk::mbuf_hash_burst(hasher, &packet, 1, &hash);
    workers_of_bucket[hash >> (32 - std::countr_zero(kBuckets))].insert(f % workers);
    rte_pktmbuf_free(packet);
  }
  std::size_t shared_buckets = 0;
  for (const auto& bucket : workers_of_bucket)
    shared_buckets += bucket.size() >= 2 ? 1 : 0;
  EXPECT_GE(shared_buckets, kBuckets - 2) << "buckets mostly carried by one worker";

  // The last worker stalls 50 ms every 100 ms: moves then wait on its acknowledgement while the
  // others have long acknowledged (a move completed on theirs alone lets the stalled worker,
  // back, send a held bucket's packets on the new member while its older ones still queue
  // behind the paused member).
  Stall stall;
  stall.worker = workers - 1;
  stall.release.store(true);
  ASSERT_TRUE(stall.attach(rig));
  rig.link(3).pause_periodically(1 * kMs, 750'000);
  rig.engine().start();
  for (int period = 0; period < 15; ++period) {
    stall.armed.store(true);
    rig.run_at_rate(52'000, 100 * kMs);  // 80% of the 65 kpps the links can carry
  }
  rig.settle();
  EXPECT_EQ(rig.engine().totals().buffered, 0u) << "packets still held once traffic stopped";
  rig.engine().stop();
  rig.drain_links();
  stall.detach();
  expect_every_worker_forwarded(rig);
  const sched::Snapshot snap = rig.engine().bond_scheduler(0).snapshot();
  EXPECT_GT(snap.held_moves, 0u) << "no busy bucket was held: the scenario did not happen";
  EXPECT_EQ(rig.tracker().reordered(), 0u);
  EXPECT_EQ(rig.tracker().foreign(), 0u);
  const datapath::CounterTotals totals = rig.engine().totals();
  EXPECT_EQ(totals.drops[static_cast<std::size_t>(datapath::DropReason::kFlowletHold)], 0u);
  EXPECT_EQ(rig.links_in_flight(), 0u);
  EXPECT_EQ(rig.injected(), rig.received_total() + totals.dropped() + rig.link_drops());
  expect_balanced(rig.engine());
  std::printf("%u workers: %llu held moves, %zu of %u buckets with flows of 2+ workers\n", workers,
              static_cast<unsigned long long>(snap.held_moves), shared_buckets, kBuckets);
}

// A rate cap is split between the workers by what each brings of its class: here worker 0's flows
// of the capped class come up 7 times as often as the others' (7/9 of the class with 3 workers,
// 7/10 with 4), the others bring less than an equal split would give them. An equal split would
// pass ~1.5-1.6 Mbit/s of the 2 the cap allows (worker 0 held to its third or quarter); split by
// what each brings, ~2.
TEST_P(MultiWorker, ARateCapIsSplitBetweenWorkersByWhatEachBrings) {
  const unsigned workers = GetParam();
  constexpr std::uint32_t kFlows = 256, kCapped = 64;  // flows 64..255: class bulk
  BondRig rig(4,
              ", mode: static, buckets: 1024, lldp: off, classes: {default: bulk, rules: [{class: "
              "other, src_port: \"1024-1087\"}], list: [{name: other}, {name: bulk, rate_cap: "
              "{mbps: 2, burst_kb: 4}}]}",
              kFlows, std::nullopt, workers);
  std::vector<std::uint32_t> order;
  for (std::uint32_t f = 0; f < kFlows; ++f) {
    // Flow f is on host queue f % workers, worker 0's when that is 0.
    const int times = f >= kCapped && f % workers == 0 ? 7 : 1;
    for (int i = 0; i < times; ++i)
      order.push_back(f);
  }
  rig.inject_in_order(order);
  std::uint64_t bulk_received = 0;
  rig.observe([&](const Stamp& stamp, int) { bulk_received += stamp.flow >= kCapped ? 1 : 0; });
  const auto bulk_among = [&order](std::uint64_t from, std::uint64_t to) {
    std::uint64_t bulk = 0;
    for (std::uint64_t i = from; i < to; ++i)
      bulk += order[i % order.size()] >= kCapped ? 1 : 0;
    return bulk;
  };
  rig.engine().start();
  rig.run_at_rate(8'000, 300 * kMs);  // the split settles on what each worker brings
  const std::uint64_t before = bulk_received;
  const std::uint64_t injected_before = rig.injected();
  const std::uint64_t start = monotonic_ns();
  rig.run_at_rate(8'000, 1000 * kMs);
  const double seconds = static_cast<double>(monotonic_ns() - start) / 1e9;
  const double offered_bps =
      static_cast<double>(bulk_among(injected_before, rig.injected())) * 64 * 8 / seconds;
  rig.settle();
  rig.engine().stop();
  const double bulk_bps = static_cast<double>(bulk_received - before) * 64 * 8 / seconds;
  const std::uint64_t bulk_injected = bulk_among(0, rig.injected());
  const std::uint64_t capped = rig.bond().class_rate_capped()[1];
  std::printf(
      "%u workers: bulk offered %.2f Mbit/s, passed %.2f Mbit/s under a 2 Mbit/s cap; capped "
      "%llu\n",
      workers, offered_bps / 1e6, bulk_bps / 1e6, static_cast<unsigned long long>(capped));
  EXPECT_EQ(bulk_injected, bulk_received + capped);
  EXPECT_LT(bulk_bps, 2.3e6);
  EXPECT_EQ(rig.bond().class_rate_capped()[0], 0u);
  const datapath::CounterTotals totals = rig.engine().totals();
  EXPECT_EQ(rig.injected(), rig.received_total() + totals.dropped());
  EXPECT_EQ(rig.tracker().reordered(), 0u);
  expect_balanced(rig.engine());
  // ~3.6 Mbit/s of bulk at the full 8 kpps; an ASan build's injector brings ~2.6 on a quiet
  // host, and a busy host's less. Over ~2.1 an even split passes 1.2-1.5 of the 2 (worker 0 held
  // to its third or quarter) and a split by what each brings ~2: below that, nothing tells them
  // apart.
  if (offered_bps < 2.1e6) {
    GTEST_SKIP() << "the injector brought " << offered_bps / 1e6
                 << " Mbit/s of bulk (a busy host): too little over the cap to judge its split";
  }
  EXPECT_GT(bulk_bps, 1.7e6) << "the cap was split evenly, not by what each worker brings";
}

}  // namespace
}  // namespace braid::test

// One EAL for the process, with five lcores on the two CPUs: the control thread (lcore 0) and
// workers 1..4, two of them on each CPU.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(
      new braid::test::EalEnvironment({"--lcores=0@0,1@1,2@1,3@0,4@1"}));
  return RUN_ALL_TESTS();
}
