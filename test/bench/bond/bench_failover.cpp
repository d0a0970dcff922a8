// Failover benchmark (not a test): 10,000 flows through a 4-member bond on net_ring ports, one
// member taken down while traffic flows. For each event it reports
//   (a) microseconds from the event to the first packet of a moved flow on a survivor,
//   (b) packets lost (injected - delivered - counted drops), and packets that left on the
//       failed member after the event (for a real link-down these die on the wire),
//   (c) the share of flows that changed member among flows that were NOT on the failed member.
// Two kinds of event: `admin` (set member down: event-driven, the table is republished inside
// the call) and `link` (rte_eth_dev_set_link_down on the ring port: net_ring raises no link
// interrupt, so braid's link poll, every link_poll_us, finds it). Flap dampening is off: every
// round takes member 2 down and up again, and from the third flap on dampening would suppress
// it, so later rounds would change no table and time nothing. A round that publishes no table or
// moves no flow stops the benchmark with the reason and exit status 1 (the `failover_guard`
// test runs it with 2 rounds).
//
//   scripts/build release && build/test/bench/bond/bench_failover [rounds]
#include <rte_ethdev.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bond_rig.hpp"
#include "log/async_log.hpp"

namespace braid::test {
namespace {

constexpr std::uint32_t kFlows = 10'000;
constexpr std::size_t kMembers = 4;
constexpr std::size_t kFailed = 2;
constexpr std::uint64_t kWarmupPackets = 200'000;
constexpr std::uint64_t kTimeoutNs = 2'000'000'000;

// A round that timed nothing: the benchmark stops (a -1 in a table measures nothing).
struct RoundError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Result {
  double failover_us = -1;
  std::uint64_t lost = 0;
  std::uint64_t after_event_on_failed = 0;
  double survivors_moved_share = 0;
};

Result run_event(BondRig& rig, bool link_event) {
  rig.send(kWarmupPackets);
  const std::vector<int> before = rig.tracker().members();
  const datapath::CounterTotals totals_before = rig.engine().totals();
  const std::uint64_t injected_before = rig.injected();
  std::uint64_t delivered_before = 0;
  for (std::size_t m = 0; m < kMembers; ++m)
    delivered_before += rig.received(m);
  const std::uint64_t failed_before = rig.received(kFailed);

  std::uint64_t first_moved_ns = 0;
  rig.observe([&](const Stamp& stamp, int member) {
    if (first_moved_ns == 0 && member != static_cast<int>(kFailed) &&
        before[stamp.flow] == static_cast<int>(kFailed)) {
      first_moved_ns = monotonic_ns();
    }
  });
  const std::uint64_t tables_before = rig.bond().counters().tables_published;
  const std::uint64_t event_ns = monotonic_ns();
  if (link_event) {
    rte_eth_dev_set_link_down(rig.member(kFailed).port_id());
  } else {
    rig.bond().set_member_admin(kFailed, false, event_ns);
  }
  while (first_moved_ns == 0 && monotonic_ns() - event_ns < kTimeoutNs)
    rig.pump(32);
  if (rig.bond().counters().tables_published == tables_before || first_moved_ns == 0) {
    const bond::MemberStatus member = rig.bond().members()[kFailed];
    throw RoundError(std::string(link_event ? "link down" : "admin down") + " of member " +
                     std::to_string(kFailed) + " " +
                     (first_moved_ns == 0 && rig.bond().counters().tables_published != tables_before
                          ? "moved no flow"
                          : "published no table") +
                     " within " + std::to_string(kTimeoutNs / 1'000'000) + " ms (link " +
                     (member.link_up ? "up" : "down") + ", health " +
                     health::to_string(member.health) + " " + member.health_reason + ")");
  }
  rig.send(kWarmupPackets);
  rig.observe(nullptr);

  Result result;
  if (first_moved_ns != 0)
    result.failover_us = static_cast<double>(first_moved_ns - event_ns) / 1e3;
  const datapath::CounterTotals totals = rig.engine().totals();
  std::uint64_t delivered = 0;
  for (std::size_t m = 0; m < kMembers; ++m)
    delivered += rig.received(m);
  const std::uint64_t injected = rig.injected() - injected_before;
  const std::uint64_t dropped = totals.dropped() - totals_before.dropped();
  result.lost = injected - (delivered - delivered_before) - dropped;
  result.after_event_on_failed = rig.received(kFailed) - failed_before;
  const std::vector<int> after = rig.tracker().members();
  std::uint64_t survivors = 0, moved = 0;
  for (std::size_t f = 0; f < before.size(); ++f) {
    if (before[f] == FlowTracker::kNone || before[f] == static_cast<int>(kFailed)) continue;
    ++survivors;
    if (after[f] != before[f]) ++moved;
  }
  result.survivors_moved_share = survivors ? static_cast<double>(moved) / survivors : 0;

  // Restore the member for the next round.
  if (link_event) {
    rte_eth_dev_set_link_up(rig.member(kFailed).port_id());
  } else {
    rig.bond().set_member_admin(kFailed, true, monotonic_ns());
  }
  rig.run_control_for(20'000'000);
  return result;
}

void report(const char* name, std::vector<Result> results) {
  std::sort(results.begin(), results.end(),
            [](const Result& a, const Result& b) { return a.failover_us < b.failover_us; });
  std::uint64_t lost = 0, on_failed = 0;
  double moved = 0;
  for (const Result& r : results) {
    lost += r.lost;
    on_failed = std::max(on_failed, r.after_event_on_failed);
    moved = std::max(moved, r.survivors_moved_share);
  }
  std::printf("| %s | %zu | %.1f | %.1f | %.1f | %llu | %llu | %.4f |\n", name, results.size(),
              results.front().failover_us, results[results.size() / 2].failover_us,
              results.back().failover_us, static_cast<unsigned long long>(lost),
              static_cast<unsigned long long>(on_failed), moved);
}

}  // namespace
}  // namespace braid::test

int main(int argc, char** argv) {
  using namespace braid::test;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  EalEnvironment eal;
  eal.SetUp();
  // As braid runs: a log line never blocks the thread that writes it (log/async_log.hpp), so
  // the protocol work timed here does not include the terminal's or syslog's.
  auto async_log = std::make_unique<braid::log::AsyncLog>();
  {
    BondRig rig(kMembers,
                ", mode: static, buckets: 4096, link_poll_us: 1000, health: {dampening: "
                "{penalty_per_flap: 0}}",
                kFlows);
    rig.engine().start();
    std::vector<Result> admin, link;
    try {
      for (int r = 0; r < rounds; ++r)
        admin.push_back(run_event(rig, false));
      for (int r = 0; r < rounds; ++r)
        link.push_back(run_event(rig, true));
    } catch (const RoundError& error) {
      std::fprintf(stderr, "bench_failover: round %zu: %s\n", admin.size() + link.size() + 1,
                   error.what());
      rig.engine().stop();
      async_log.reset();
      eal.TearDown();
      return 1;
    }
    rig.engine().stop();
    std::printf("failover of member %zu of %zu, %u flows, net_ring members, 1 worker lcore\n\n",
                kFailed, kMembers, kFlows);
    std::printf(
        "| event | rounds | min us | median us | max us | lost | sent on failed member "
        "after event (max) | survivor flows moved (max share) |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    report("admin down (event-driven)", admin);
    report("link down (1 ms link poll)", link);
    const braid::datapath::CounterTotals totals = rig.engine().totals();
    std::printf("\naccounting: %s (rx %llu, tx %llu, dropped %llu)\n",
                totals.balanced() ? "balanced" : "MISMATCH",
                static_cast<unsigned long long>(totals.rx()),
                static_cast<unsigned long long>(totals.tx()),
                static_cast<unsigned long long>(totals.dropped()));
  }
  async_log.reset();
  eal.TearDown();
  return 0;
}
