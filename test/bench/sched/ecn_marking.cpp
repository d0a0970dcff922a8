// Issue 16, benchmark 4 (not a test): braid's ECN marking end to end, the marked fraction against
// the queue depth it was decided at, next to the configured profile. A braid bond of 2 net_ring
// members behind emulated links of 20 kpps; one class, every flow ECT(0), with the profile
// kmin 16, kmax 112, pmax 50%. Offered 48 kpps against 40 of capacity, so both queues stand full;
// each run sets the links' queue limit, and with it the depth the queue stands at. Per run: the
// depth the scheduler read (its mean over the periods), the fraction of arrived packets that
// were CE, and what the profile gives at that depth.
//
//   scripts/build release --targets ecn_marking && build/test/bench/sched/ecn_marking [seconds, 1]
#include <rte_ethdev.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bond_rig.hpp"
#include "ecn/ecn_profile.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kWarmUpNs = 300 * kMs;

struct Result {
  double depth = 0;  // mean of the scheduler's readings while measuring
  std::uint64_t arrived = 0;
  std::uint64_t ce = 0;
  bool accounted = false;
};

Result run(std::uint32_t queue_packets, double seconds) {
  linkemu::LinkSettings link;
  link.rate_pps = 20'000;
  link.queue_packets = queue_packets;
  link.latency_ns = 20'000;
  BondRig rig(2,
              ", mode: static, lldp: off, classes: {default: all, list: [{name: all, ecn: "
              "{kmin_descriptors: 16, kmax_descriptors: 112, pmax_permille: 500}}]}",
              256, link);
  Result r;
  bool measuring = false;
  rig.intercept([&](const rte_mbuf* frame, std::size_t) {
    const auto* bytes = rte_pktmbuf_mtod(frame, const std::uint8_t*);
    if (!measuring || frame->data_len < 64 || bytes[12] != 0x08 || bytes[13] != 0x00) return false;
    ++r.arrived;
    if ((bytes[15] & 0x03) == 0x03) ++r.ce;
    return false;
  });
  rig.engine().start();
  rig.run_at_rate(48'000, kWarmUpNs);
  measuring = true;
  double depth_sum = 0;
  std::uint64_t samples = 0;
  const std::uint64_t end = monotonic_ns() + static_cast<std::uint64_t>(seconds * 1e9);
  while (monotonic_ns() < end) {
    rig.run_at_rate(48'000, 10 * kMs);
    const sched::Snapshot snap = rig.engine().bond_scheduler(0).snapshot();
    for (const sched::MemberSnapshot& member : snap.members) {
      depth_sum += member.queue_depth.value_or(0);
      ++samples;
    }
  }
  measuring = false;
  rig.settle();
  rig.engine().stop();
  rig.drain_links();
  r.depth = samples != 0 ? depth_sum / static_cast<double>(samples) : 0;
  r.accounted = rig.all_accounted();
  return r;
}

}  // namespace
}  // namespace braid::test

int main(int argc, char** argv) {
  using namespace braid::test;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1;
  EalEnvironment eal;
  eal.SetUp();
  braid::ecn::EcnProfile profile;
  profile.kmin_descriptors = 16;
  profile.kmax_descriptors = 112;
  profile.pmax_permille = 500;
  std::printf(
      "2 members x 20 kpps, offered 48 kpps of ECT(0); profile kmin 16, kmax 112, pmax 50%%; "
      "%.1f s measured per queue limit\n\n",
      seconds);
  std::printf(
      "| queue limit | depth read (mean) | arrived | CE | marked | profile at that depth | "
      "accounted |\n|---:|---:|---:|---:|---:|---:|---|\n");
  for (const std::uint32_t queue : {8u, 24u, 40u, 64u, 88u, 104u, 128u}) {
    const Result r = run(queue, seconds);
    const double marked = r.arrived != 0 ? static_cast<double>(r.ce) / r.arrived : 0;
    std::printf(
        "| %u | %.1f | %llu | %llu | %.1f%% | %.1f%% | %s |\n", queue, r.depth,
        static_cast<unsigned long long>(r.arrived), static_cast<unsigned long long>(r.ce),
        marked * 100,
        braid::ecn::mark_probability(profile, static_cast<std::uint32_t>(r.depth + 0.5)) * 100,
        r.accounted ? "yes" : "NO");
    std::fflush(stdout);
  }
  eal.TearDown();
  return 0;
}
