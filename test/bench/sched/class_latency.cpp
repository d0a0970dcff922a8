// Issue 16, benchmark 1 (not a test): the delay of a latency-sensitive class under bulk load, per
// policy of that class. A braid bond of 4 net_ring members, each behind an emulated link
// (drivers/linkemu) of `link_kpps`, queue 256, latency 20 us; one worker lcore, the harness
// thread injecting and acting as braid's control thread. Two classes: `probe`, 64 small flows
// (a packet every 5 ms each, like synchronous NVMe/TCP or RPC clients), under the policy measured;
// and `bulk`, Zipf(1.1) over 1000 flows under hash at 85% of the links' capacity, so the member
// that carries the top flows is overloaded and its queue stands full (the hot-link problem). In
// the second scenario member 3 is also paused 500 us of every millisecond (its PFC peer) and bulk
// runs at 85% of what remains. A probe packet's delay runs from its injection to its arrival at
// the link's far end (host ring, worker, braid's TX buffer, the link's queue and latency).
//
//   scripts/build release && build/test/bench/sched/class_latency [link_kpps, 50] [seconds, 3]
#include <rte_ethdev.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bond_rig.hpp"
#include "trace/synthetic_trace.hpp"

namespace braid::test {
namespace {

constexpr std::size_t kMembers = 4;
constexpr std::uint32_t kBulkFlows = 1000;
constexpr std::uint32_t kProbeFlows = 64;  // flows 1000..1063: source ports 2024..2087
constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kProbeIntervalNs = 5 * kMs;
constexpr std::uint64_t kWarmUpNs = 500 * kMs;  // the scheduler settles; not measured
constexpr double kBulkLoad = 0.85;

struct Result {
  std::uint64_t probes_sent = 0;
  std::uint64_t probes_delivered = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
  std::vector<std::uint64_t> probes_on;  // measured probe packets by the member they took
  std::vector<std::uint32_t> depth;      // each member's queue at the end
  std::uint64_t moves = 0, held_moves = 0;
  std::uint64_t reordered = 0;
  std::uint64_t link_drops = 0;
  std::uint64_t braid_drops = 0;
  bool accounted = false;
};

// Each probe flow's send times, by sequence number.
class ProbeClock {
 public:
  void sent(std::uint32_t flow, std::uint32_t sequence, std::uint64_t now_ns) {
    std::vector<std::uint64_t>& of = sent_[flow - kBulkFlows];
    if (of.size() <= sequence) of.resize(sequence + 1, 0);
    of[sequence] = now_ns;
  }
  // The packet's send time, 0 when it was sent before measuring began.
  std::uint64_t sent_at(const Stamp& stamp) const {
    const std::vector<std::uint64_t>& of = sent_[stamp.flow - kBulkFlows];
    return stamp.sequence < of.size() ? of[stamp.sequence] : 0;
  }

 private:
  std::vector<std::vector<std::uint64_t>> sent_ =
      std::vector<std::vector<std::uint64_t>>(kProbeFlows);
};

Result run(const std::string& policy, bool paused, double link_pps, double seconds) {
  linkemu::LinkSettings link;
  link.rate_pps = link_pps;
  link.queue_packets = 256;
  link.latency_ns = 20'000;
  BondRig rig(kMembers,
              ", mode: static, buckets: 1024, lldp: off, scheduler: {policy: hash, congestion: "
              "{source: sim}}, classes: {default: bulk, list: [{name: probe, policy: " +
                  policy + "}, {name: bulk}], rules: [{class: probe, src_port: \"2024-2087\"}]}",
              kBulkFlows + kProbeFlows, link);
  trace::TraceSpec spec;
  spec.flows = kBulkFlows;
  spec.packets = 1 << 20;
  spec.zipf_exponent = 1.1;
  spec.seed = 7;
  rig.inject_in_order(trace::make_packet_flows(spec));
  if (paused) rig.link(3).pause_periodically(1 * kMs, 500'000);
  const double available = link_pps * (paused ? kMembers - 0.5 : kMembers);

  Result r;
  ProbeClock clock;
  std::vector<std::uint64_t> delays;
  std::vector<std::uint64_t> probes_on(kMembers, 0);
  bool measuring = false;
  rig.observe([&](const Stamp& stamp, int member) {
    if (stamp.flow < kBulkFlows || !measuring) return;
    const std::uint64_t sent = clock.sent_at(stamp);
    if (sent == 0) return;
    delays.push_back(stamp.time > sent ? stamp.time - sent : 0);
    ++probes_on[static_cast<std::size_t>(member)];
  });
  rig.engine().start();
  const std::uint64_t start = monotonic_ns();
  const std::uint64_t measure_from = start + kWarmUpNs;
  const std::uint64_t end = measure_from + static_cast<std::uint64_t>(seconds * 1e9);
  Pacer bulk(available * kBulkLoad, start);
  std::vector<std::uint64_t> next_probe(kProbeFlows);
  for (std::uint32_t f = 0; f < kProbeFlows; ++f)
    next_probe[f] = start + f * kProbeIntervalNs / kProbeFlows;  // spread over the interval
  for (std::uint64_t now = start; now < end; now = monotonic_ns()) {
    measuring = now >= measure_from;
    bulk.spent(rig.pump(bulk.due(now)));
    for (std::uint32_t f = 0; f < kProbeFlows; ++f) {
      if (now < next_probe[f]) continue;
      next_probe[f] += kProbeIntervalNs;
      if (next_probe[f] < now) next_probe[f] = now + kProbeIntervalNs;  // descheduled: skip
      const std::uint32_t sequence = rig.inject(kBulkFlows + f);
      if (sequence == 0 || !measuring) continue;
      clock.sent(kBulkFlows + f, sequence, now);
      ++r.probes_sent;
    }
  }
  rig.settle();
  rig.engine().stop();
  rig.drain_links();

  r.probes_delivered = delays.size();
  std::sort(delays.begin(), delays.end());
  const auto at = [&](double q) { return static_cast<double>(sorted_quantile(delays, q)) / 1e3; };
  r.p50_us = at(0.5);
  r.p99_us = at(0.99);
  r.p999_us = at(0.999);
  r.max_us = at(1.0);
  const sched::BondScheduler& scheduler = rig.engine().bond_scheduler(0);
  const sched::Snapshot bulk_view = scheduler.snapshot(1);
  for (std::size_t m = 0; m < kMembers; ++m)
    r.depth.push_back(bulk_view.members[m].queue_depth.value_or(0));
  r.probes_on = probes_on;
  const sched::Snapshot probe_view = scheduler.snapshot(0);
  r.moves = probe_view.moves;
  r.held_moves = probe_view.held_moves;
  r.reordered = rig.tracker().reordered();
  r.link_drops = rig.link_drops();
  r.braid_drops = rig.engine().totals().dropped();
  r.accounted = rig.all_accounted();
  return r;
}

}  // namespace
}  // namespace braid::test

int main(int argc, char** argv) {
  using namespace braid::test;
  const double link_kpps = argc > 1 ? std::atof(argv[1]) : 50;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3;
  EalEnvironment eal;
  eal.SetUp();
  std::printf(
      "4 members x %.0f kpps (queue 256, latency 20 us); bulk: Zipf(1.1) over %u flows under hash "
      "at %.0f%% of the capacity available; probe: %u flows, a packet every %.0f ms each; %.1f s "
      "measured after %.0f ms\n\n",
      link_kpps, kBulkFlows, kBulkLoad * 100, kProbeFlows,
      static_cast<double>(kProbeIntervalNs) / 1e6, seconds, static_cast<double>(kWarmUpNs) / 1e6);
  std::printf(
      "| scenario | probe policy | probes delivered | p50 us | p99 us | p99.9 us | max us | probes "
      "via m0/m1/m2/m3 | queues at the end | probe moves (held) | reordered | link drops | braid "
      "drops | accounted |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---|\n");
  for (const bool paused : {false, true}) {
    for (const char* policy : {"hash", "lqf", "latency"}) {
      const Result r = run(policy, paused, link_kpps * 1000, seconds);
      std::string via, depths;
      for (std::size_t m = 0; m < kMembers; ++m) {
        via += (m ? "/" : "") + std::to_string(r.probes_on[m]);
        depths += (m ? "/" : "") + std::to_string(r.depth[m]);
      }
      std::printf(
          "| %s | %s | %llu of %llu | %.0f | %.0f | %.0f | %.0f | %s | %s | %llu (%llu) | %llu "
          "| %llu | %llu | %s |\n",
          paused ? "hot link + m3 paused 50%" : "hot link", policy,
          static_cast<unsigned long long>(r.probes_delivered),
          static_cast<unsigned long long>(r.probes_sent), r.p50_us, r.p99_us, r.p999_us, r.max_us,
          via.c_str(), depths.c_str(), static_cast<unsigned long long>(r.moves),
          static_cast<unsigned long long>(r.held_moves),
          static_cast<unsigned long long>(r.reordered),
          static_cast<unsigned long long>(r.link_drops),
          static_cast<unsigned long long>(r.braid_drops), r.accounted ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
  eal.TearDown();
  return 0;
}
