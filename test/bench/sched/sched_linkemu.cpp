// Scheduling quality end to end on CPU (not a test): a braid bond of 4 net_ring members, each
// behind an emulated link (drivers/linkemu) of `link_kpps`, one worker lcore, the harness thread
// injecting a Zipf(1.1) mix of 1000 flows and reading the links' far ends (judging order by
// arrival time), and acting as braid's control thread. From 200 ms on, the switch pauses the
// member that carries the heaviest flow at that time 500 us of every millisecond: the elephant
// case, where that flow alone is more than the paused member can send. Per policy it reports what
// the links delivered as a share of the capacity actually available, what braid sent each member,
// reordering, and every drop by reason.
//
//   scripts/build release && build/test/bench/sched/sched_linkemu [link_kpps, 50] [seconds, 3]
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
constexpr std::uint32_t kFlows = 1000;
constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kPauseFromNs = 200 * kMs;  // warm-up, then the pauses
constexpr double kLoad = 0.9;                      // of the capacity available once paused

struct Result {
  double offered_share = 0;        // injected while measuring, of the available capacity
  double delivered_share = 0;      // delivered while measuring, of the available capacity
  std::vector<double> sent_share;  // what braid handed each member, of all it handed
  std::uint64_t reordered = 0;
  std::uint64_t link_drops = 0;
  std::uint64_t braid_drops = 0;
  std::uint64_t flowlet_hold = 0;
  std::uint64_t held_moves = 0;
  std::uint64_t moves = 0;
  std::vector<std::uint32_t> weights;
  int paused = -1;           // the member paused: the heaviest flow's when the pauses began
  int top_flow_member = -1;  // where the heaviest flow's packets arrived last
  double top_flow_share = 0;
  bool accounted = false;
};

Result run(const std::string& policy, double link_pps, double seconds) {
  linkemu::LinkSettings link;
  link.rate_pps = link_pps;
  link.queue_packets = 256;
  link.latency_ns = 20'000;
  BondRig rig(kMembers,
              ", mode: static, buckets: 4096, scheduler: {policy: " + policy +
                  ", out_of_order_placement: true, congestion: {source: sim}}",
              kFlows, link);
  trace::TraceSpec spec;
  spec.flows = kFlows;
  spec.packets = 1 << 20;
  spec.zipf_exponent = 1.1;
  spec.seed = 7;
  std::vector<std::uint32_t> order = trace::make_packet_flows(spec);
  std::vector<std::uint32_t> packets_of(kFlows, 0);
  for (std::uint32_t flow : order)
    ++packets_of[flow];
  const auto top = static_cast<std::uint32_t>(
      std::max_element(packets_of.begin(), packets_of.end()) - packets_of.begin());
  rig.inject_in_order(std::move(order));
  const double available = link_pps * (kMembers - 0.5);
  rig.engine().start();
  rig.run_at_rate(available * kLoad, kPauseFromNs);
  Result r;
  r.paused = std::max(rig.tracker().member_of(top), 0);
  rig.link(static_cast<std::size_t>(r.paused)).pause_periodically(1 * kMs, 500'000);
  rig.run_at_rate(available * kLoad, 100 * kMs);  // the scheduler reacts; not measured
  std::uint64_t received_before = 0;
  for (std::size_t m = 0; m < kMembers; ++m)
    received_before += rig.received(m);
  const std::uint64_t injected_before = rig.injected();
  const std::uint64_t start = monotonic_ns();
  rig.run_at_rate(available * kLoad, static_cast<std::uint64_t>(seconds * 1e9));
  const double measured_s = static_cast<double>(monotonic_ns() - start) / 1e9;
  std::uint64_t received_after = 0;
  for (std::size_t m = 0; m < kMembers; ++m)
    received_after += rig.received(m);
  r.offered_share =
      static_cast<double>(rig.injected() - injected_before) / (available * measured_s);
  r.delivered_share =
      static_cast<double>(received_after - received_before) / (available * measured_s);
  rig.settle();
  rig.engine().stop();
  const datapath::CounterTotals totals = rig.engine().totals();
  double sent = 0;
  for (std::size_t m = 0; m < kMembers; ++m)
    sent += static_cast<double>(totals.tx_packets[rig.member(m).port_id()]);
  for (std::size_t m = 0; m < kMembers; ++m)
    r.sent_share.push_back(static_cast<double>(totals.tx_packets[rig.member(m).port_id()]) / sent);
  r.reordered = rig.tracker().reordered();
  r.top_flow_member = rig.tracker().member_of(top);
  r.top_flow_share = static_cast<double>(packets_of[top]) / static_cast<double>(spec.packets);
  r.link_drops = rig.link_drops();
  r.braid_drops = totals.dropped();
  r.flowlet_hold = totals.drops[static_cast<std::size_t>(datapath::DropReason::kFlowletHold)];
  const sched::Snapshot snap = rig.engine().bond_scheduler(0).snapshot();
  r.held_moves = snap.held_moves;
  r.moves = snap.moves;
  for (const sched::MemberSnapshot& member : snap.members)
    r.weights.push_back(member.weight);
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
      "4 members x %.0f kpps (queue 256, latency 20 us), the top flow's member paused 500 us of "
      "every 1 ms, "
      "Zipf(1.1) over %u flows at %.0f%% of the %.0f kpps available, %.1f s measured\n\n",
      link_kpps, kFlows, kLoad * 100, link_kpps * 3.5, seconds);
  std::printf(
      "| policy | paused | offered | delivered (of available) | sent to m0/m1/m2/m3 | top flow on "
      "| "
      "reordered | link drops | braid drops (flowlet_hold) | moves (busy ones held) | weights | "
      "accounted |\n");
  std::printf("|---|---|---:|---:|---|---|---:|---:|---:|---:|---|---|\n");
  for (const char* policy : {"hash", "lqf", "adaptive", "latency", "spray"}) {
    const Result r = run(policy, link_kpps * 1000, seconds);
    std::string shares, weights;
    for (double share : r.sent_share)
      shares +=
          (shares.empty() ? "" : " / ") + std::to_string(static_cast<int>(share * 100 + 0.5)) + "%";
    for (std::uint32_t weight : r.weights)
      weights += (weights.empty() ? "" : " ") + std::to_string(weight);
    std::printf(
        "| %s | m%d | %.1f%% | %.1f%% | %s | m%d (%.0f%%) | %llu | %llu | %llu (%llu) | %llu "
        "(%llu) "
        "| %s | %s |\n",
        policy, r.paused, r.offered_share * 100, r.delivered_share * 100, shares.c_str(),
        r.top_flow_member, r.top_flow_share * 100, static_cast<unsigned long long>(r.reordered),
        static_cast<unsigned long long>(r.link_drops),
        static_cast<unsigned long long>(r.braid_drops),
        static_cast<unsigned long long>(r.flowlet_hold), static_cast<unsigned long long>(r.moves),
        static_cast<unsigned long long>(r.held_moves), weights.c_str(), r.accounted ? "yes" : "NO");
    std::fflush(stdout);
  }
  eal.TearDown();
  return 0;
}
