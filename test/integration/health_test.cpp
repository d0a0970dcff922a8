// Member health on real ring ports, end to end on the protocol loop's code (Bond::poll): a member
// whose link flaps every 2 s is suppressed by flap dampening at its third flap, carries nothing
// while suppressed although its link is up, and is reused once the penalty has decayed; a member
// whose link emulator takes 5% of its received frames as CRC errors is cut to the degraded weight
// and restored once the rate stayed below the recovery threshold for the hold time. No flow on
// another member moves in either. Short half-lives, windows and holds keep each near 10 s.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "bond_rig.hpp"
#include "linkemu/rx_errors.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr double kPps = 20'000;

// Buckets on members other than `member` in `before` that name another member in `after`.
std::size_t moved_elsewhere(const std::vector<bond::MemberIndex>& before,
                            const std::vector<bond::MemberIndex>& after, std::size_t member) {
  std::size_t moved = 0;
  for (std::size_t b = 0; b < before.size() && b < after.size(); ++b) {
    if (before[b] != member && before[b] != after[b]) ++moved;
  }
  return moved;
}

health::State state_of(BondRig& rig, std::size_t member) {
  return rig.bond().members()[member].health;
}

// Traffic at kPps until `until_ns` (monotonic).
void run_until(BondRig& rig, std::uint64_t until_ns) {
  const std::uint64_t now = monotonic_ns();
  if (until_ns > now) rig.run_at_rate(kPps, until_ns - now);
}

TEST(MemberHealth, AFlappingMemberIsSuppressedCarriesNothingAndIsReusedAfterTheDecay) {
  // Half-life 4 s, flaps 2 s apart: penalty 1000, 1707, 2207 -> suppressed at the 3rd flap, reused
  // when 2207 has decayed to 750: 4 s * log2(2207 / 750) = 6.2 s later.
  BondRig rig(3,
              ", mode: static, link_poll_us: 200, health: {dampening: {half_life_s: 4, "
              "suppress_threshold: 2000, reuse_threshold: 750, max_suppress_s: 20}}");
  rig.engine().start();
  rig.send(10'000);
  ASSERT_GT(rig.received(0), 0u);
  const std::uint16_t port = rig.member(0).port_id();
  const std::uint64_t start = monotonic_ns();
  std::uint64_t third_flap_ns = 0;
  std::vector<bond::MemberIndex> before_third;
  for (int flap = 1; flap <= 3; ++flap) {
    const std::uint64_t at = start + static_cast<std::uint64_t>(flap - 1) * 2000 * kMs;
    run_until(rig, at);
    if (flap == 3) before_third = rig.bond().assignment();
    rte_eth_dev_set_link_down(port);
    if (flap == 3) third_flap_ns = monotonic_ns();
    run_until(rig, at + 500 * kMs);
    EXPECT_EQ(rig.bond().members()[0].buckets, 0u) << "flap " << flap;
    rte_eth_dev_set_link_up(port);
    run_until(rig, at + 1000 * kMs);
    if (flap < 3) {
      // The first two flaps do not suppress it: it is back and carries its share.
      EXPECT_EQ(state_of(rig, 0), health::State::kHealthy) << "flap " << flap;
      EXPECT_TRUE(rig.bond().members()[0].distributing) << "flap " << flap;
    }
  }
  // Link up, member suppressed: no buckets, nothing sent on it, and the other members' flows
  // did not move when it left.
  EXPECT_EQ(state_of(rig, 0), health::State::kSuppressed);
  EXPECT_TRUE(rig.bond().members()[0].link_up);
  EXPECT_FALSE(rig.bond().members()[0].distributing);
  EXPECT_EQ(rig.bond().members()[0].buckets, 0u);
  EXPECT_EQ(moved_elsewhere(before_third, rig.bond().assignment(), 0), 0u);
  EXPECT_EQ(rig.bond().health_view(0, monotonic_ns()).flaps, 3u);
  rig.settle();
  const std::uint64_t sent_while_suppressed = rig.received(0);
  run_until(rig, third_flap_ns + 4000 * kMs);
  rig.settle();
  EXPECT_EQ(rig.received(0), sent_while_suppressed) << "a suppressed member carried traffic";
  EXPECT_EQ(state_of(rig, 0), health::State::kSuppressed);
  // Reused when the penalty reaches 750 (6.2 s after the 3rd flap), not before.
  std::uint64_t reused_ns = 0;
  while (monotonic_ns() < third_flap_ns + 12'000 * kMs && reused_ns == 0) {
    rig.run_at_rate(kPps, 20 * kMs);
    if (state_of(rig, 0) == health::State::kHealthy) reused_ns = monotonic_ns();
  }
  ASSERT_NE(reused_ns, 0u) << "never reused";
  const double after_s = static_cast<double>(reused_ns - third_flap_ns) / 1e9;
  std::printf("suppressed at the 3rd flap, reused %.2f s after it (model: %.2f s)\n", after_s,
              4.0 * std::log2((1000 + 1000 * std::exp2(-0.5) + 500) / 750.0));
  EXPECT_GT(after_s, 5.5);
  EXPECT_LT(after_s, 7.5);
  EXPECT_TRUE(rig.bond().members()[0].distributing);
  rig.send(10'000);
  EXPECT_GT(rig.received(0), sent_while_suppressed);
  rig.engine().stop();
}

// Traffic through the bond (TX) and, on member `rx_member`, received from the far end (RX, which
// the host port forwards out and this drains) until `until_ns`.
void run_with_rx(BondRig& rig, FlowSet& far_end, std::size_t rx_member, std::uint64_t until_ns) {
  std::uint32_t flow = 0;
  while (monotonic_ns() < until_ns) {
    rte_mbuf* burst[32];
    unsigned made = 0;
    for (; made < 32; ++made) {
      burst[made] = far_end.make(test_mempool(), flow);
      flow = (flow + 1) % far_end.size();
      if (burst[made] == nullptr) break;
    }
    const unsigned queued = rte_ring_enqueue_burst(rig.member(rx_member).to_port(),
                                                   reinterpret_cast<void**>(burst), made, nullptr);
    rte_pktmbuf_free_bulk(burst + queued, made - queued);
    rig.pump(32);
    rig.host().drain([](const rte_mbuf*) {});
  }
}

TEST(MemberHealth, CrcErrorsCutAMemberToTheDegradedWeightUntilTheRateStaysLowForTheHold) {
  // 2 s window, degrade above 10000 ppm, recover below 1000 held for 3 s, degraded weight 250.
  BondRig rig(3,
              ", mode: static, health: {window_s: 2, degraded_weight_permille: 250, signals: "
              "{crc: {degrade_ppm: 10000, recover_ppm: 1000, min_frames: 2000, recover_hold_s: "
              "3}}}");
  // The injector's RX callbacks go after the workers stopped (one may be inside them) and before
  // the rig closes the port: a callback left on a closed port stays in DPDK's per-port table
  // and is called on the next port that gets its id (the next test's).
  auto injector = std::make_unique<linkemu::RxErrorInjector>(rig.member(0).port_id());
  struct RemoveFirst {
    BondRig& rig;
    std::unique_ptr<linkemu::RxErrorInjector>& injector;
    ~RemoveFirst() {
      rig.engine().stop();
      injector.reset();
    }
  } remove_first{rig, injector};
  linkemu::RxErrorInjector& errors = *injector;
  rig.engine().start();
  FlowSet far_end(256);
  const std::uint64_t start = monotonic_ns();
  run_with_rx(rig, far_end, 0, start + 2500 * kMs);
  ASSERT_EQ(state_of(rig, 0), health::State::kHealthy);
  const std::vector<bond::MemberIndex> before = rig.bond().assignment();
  const std::uint32_t buckets_before = rig.bond().members()[0].buckets;
  // 5% of what member 0 receives fails its FCS check.
  errors.set_error_fraction(0.05);
  const std::uint64_t errors_on = monotonic_ns();
  std::uint64_t degraded_ns = 0;
  while (degraded_ns == 0 && monotonic_ns() < errors_on + 8000 * kMs) {
    run_with_rx(rig, far_end, 0, monotonic_ns() + 20 * kMs);
    if (state_of(rig, 0) == health::State::kDegraded) degraded_ns = monotonic_ns();
  }
  ASSERT_NE(degraded_ns, 0u) << "5% CRC errors never degraded the member";
  const health::HealthView degraded = rig.bond().health_view(0, monotonic_ns());
  EXPECT_EQ(degraded.reason, health::Reason::kErrorRate);
  EXPECT_EQ(degraded.evidence.signal, health::Signal::kCrc);
  EXPECT_GT(degraded.evidence.rate_ppm, 10'000);
  EXPECT_EQ(degraded.weight_permille, 250u);
  // Quotas 250 : 1000 : 1000 of 256 buckets: member 0 keeps 28, and only its buckets moved.
  const std::vector<bond::MemberIndex> cut = rig.bond().assignment();
  EXPECT_LT(rig.bond().members()[0].buckets, buckets_before);
  EXPECT_EQ(rig.bond().members()[0].buckets, 28u);
  EXPECT_TRUE(rig.bond().members()[0].distributing);
  EXPECT_EQ(moved_elsewhere(before, cut, 0), 0u);
  // The errors stop: the 2 s window clears, then the rate must stay below 1000 ppm for 3 s.
  errors.set_error_fraction(0.0);
  const std::uint64_t errors_off = monotonic_ns();
  std::uint64_t restored_ns = 0;
  while (restored_ns == 0 && monotonic_ns() < errors_off + 12'000 * kMs) {
    run_with_rx(rig, far_end, 0, monotonic_ns() + 20 * kMs);
    if (state_of(rig, 0) == health::State::kHealthy) restored_ns = monotonic_ns();
  }
  ASSERT_NE(restored_ns, 0u) << "never restored";
  const double degrade_s = static_cast<double>(degraded_ns - errors_on) / 1e9;
  const double restore_s = static_cast<double>(restored_ns - errors_off) / 1e9;
  std::printf(
      "5%% CRC errors: degraded %.2f s after they began; restored %.2f s after they "
      "stopped (window 2 s + hold 3 s)\n",
      degrade_s, restore_s);
  EXPECT_GE(restore_s, 3.0);  // never before the hold
  EXPECT_EQ(rig.bond().health_view(0, monotonic_ns()).weight_permille, 1000u);
  // Restored: buckets moved back to member 0 only, none between the others.
  const std::vector<bond::MemberIndex> after = rig.bond().assignment();
  for (std::size_t b = 0; b < after.size(); ++b) {
    if (after[b] != cut[b]) {
      EXPECT_EQ(after[b], 0u) << "bucket " << b;
    }
  }
  EXPECT_EQ(rig.bond().members()[0].buckets, buckets_before);
  rig.engine().stop();
}

}  // namespace
}  // namespace braid::test
