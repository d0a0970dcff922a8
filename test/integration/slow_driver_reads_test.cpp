// A NIC whose counter reads block (mlx5: xstats through an ethtool ioctl that waits for the
// kernel's rtnl lock) never holds up the protocol loop (issue 33 item 1): the once-a-second
// health sample and `show port xstats` read on the SlowReads helper, and the sample's health
// update follows when the read comes back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "bond_rig.hpp"
#include "common/clock.hpp"
#include "linkemu/link_registry.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kReadDelayNs = 100 * kMs;  // per member and read

std::uint64_t runs_of(const engine::Engine& engine, const std::string& kind,
                      std::uint64_t* worst_ns) {
  for (const JobDurations::Row& row : engine.slow_reads().durations(monotonic_ns())) {
    if (row.kind != kind) continue;
    *worst_ns = row.worst_ns;
    return row.runs;
  }
  return 0;
}

TEST(SlowDriverReads, HealthSamplesOfANicWhoseReadsBlockNeverHoldUpTheProtocolLoop) {
  BondRig rig(2, ", mode: static");
  rig.engine().start();
  for (std::size_t m = 0; m < 2; ++m)
    linkemu::set_counter_read_delay(rig.member(m).port_id(), kReadDelayNs);

  // Three health samples' worth of protocol loop iterations, each timed, each reading every
  // port's NIC counters as the stats line and metrics do (while the helper holds a member's
  // counters, the loop gets what it read last: never a wait, never a count going back).
  std::uint64_t longest_poll_ns = 0;
  std::vector<std::uint64_t> tx_seen(rig.engine().port_count(), 0);
  const std::uint64_t until = monotonic_ns() + 3'200 * kMs;
  while (monotonic_ns() < until) {
    const std::uint64_t before = monotonic_ns();
    rig.engine().poll_control(before);
    for (std::size_t p = 0; p < rig.engine().port_count(); ++p) {
      const std::uint64_t tx = rig.engine().nic_counters(p).tx_packets;
      EXPECT_GE(tx, tx_seen[p]) << "port " << p << "'s count went back";
      tx_seen[p] = tx;
    }
    longest_poll_ns = std::max(longest_poll_ns, monotonic_ns() - before);
    rig.send(1);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  std::uint64_t worst_read_ns = 0;
  const std::uint64_t samples = runs_of(rig.engine(), "health counters", &worst_read_ns);
  std::printf(
      "3.2 s with member counter reads of 100 ms each: %llu health samples read off the "
      "loop (worst %.1f ms), the longest protocol loop iteration %.3f ms\n",
      static_cast<unsigned long long>(samples), static_cast<double>(worst_read_ns) / 1e6,
      static_cast<double>(longest_poll_ns) / 1e6);
  EXPECT_GE(samples, 2u) << "the health sample did not read on the helper";
  EXPECT_GE(worst_read_ns, 2 * kReadDelayNs) << "the emulated delay did not apply";
  EXPECT_LT(longest_poll_ns, 20 * kMs) << "a counter read held up the protocol loop";
  // The samples still fed health: both members healthy, forwarding as before.
  for (std::size_t m = 0; m < 2; ++m)
    EXPECT_EQ(rig.engine().bond(0).members()[m].health_weight_permille, 1000u);
  const std::uint64_t received = rig.received_total();
  rig.send(100);
  EXPECT_EQ(rig.received_total(), received + 100);
  for (std::size_t m = 0; m < 2; ++m)
    linkemu::set_counter_read_delay(rig.member(m).port_id(), 0);
  rig.engine().stop();
}

}  // namespace
}  // namespace braid::test
