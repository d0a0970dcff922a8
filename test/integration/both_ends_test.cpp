// Both ends agree (issue 32): a member braid takes out of service leaves the partner's
// distribution too. Two LACP systems in one engine (TwoBondsRig: "near" is braid, "far" stands in
// for the switch) with the far end sending to the near one: an operator's drain loses nothing,
// and the storage-gateway incident (one member receiving CRC errors from the switch) ends with
// the switch no longer sending on that member.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "linkemu/rx_errors.hpp"
#include "two_bonds_rig.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr double kPps = 20'000;

TEST(BothEnds, ADrainTellsTheFarEndToStopAndLosesNothingInFlight) {
  TwoBondsRig rig(4, "");
  rig.engine().start();
  ASSERT_TRUE(rig.converge());
  // Steady state: the LACPDUs of the convergence have left the 3-per-second transmit limit's
  // window (802.1AX 6.4.16), which the withdrawal's LACPDU counts against too.
  rig.run_at_rate(kPps, 1500 * kMs);
  ASSERT_GT(rig.crossed(1), 0u) << "the far end must send on member 1 first";

  const std::uint64_t drained_at = monotonic_ns();
  rig.near().set_member_admin(1, false, drained_at);
  EXPECT_EQ(rig.near().service(1).verdict().tx_weight_permille, 0u);
  EXPECT_TRUE(rig.near().service(1).verdict().collecting) << "a drain keeps collecting";
  // Until the far end's last frame on cable 1, then a second more of traffic.
  std::uint64_t last_crossing_ns = drained_at;
  std::uint64_t seen = rig.crossed(1);
  const std::uint64_t until = drained_at + 1000 * kMs;
  Pacer pacer(kPps, drained_at);
  for (std::uint64_t now = drained_at; now < until; now = monotonic_ns()) {
    pacer.spent(rig.pump(pacer.due(now)));
    if (rig.crossed(1) != seen) {
      seen = rig.crossed(1);
      last_crossing_ns = monotonic_ns();
    }
  }
  ASSERT_TRUE(rig.settle());
  const std::uint64_t acked_ns =
      TwoBondsRig::event_after(rig.near(), drained_at, "partner stopped sending");
  const double last_ms = static_cast<double>(last_crossing_ns - drained_at) / 1e6;
  std::printf(
      "drain: far end acknowledged %.2f ms after the drain, its last frame on the member "
      "%.2f ms after it; not_collecting drops %llu, every packet delivered: %llu of %llu\n",
      acked_ns ? static_cast<double>(acked_ns - drained_at) / 1e6 : -1.0, last_ms,
      static_cast<unsigned long long>(rig.dropped(datapath::DropReason::kNotCollecting)),
      static_cast<unsigned long long>(rig.delivered()),
      static_cast<unsigned long long>(rig.injected()));
  EXPECT_NE(acked_ns, 0u) << "the far end never acknowledged the withdrawal";
  EXPECT_EQ(rig.near().service(1).last_release(), bond::Release::kAcknowledged);
  EXPECT_LT(last_ms, 30.0) << "the far end kept sending on the drained member";
  EXPECT_EQ(rig.dropped(datapath::DropReason::kNotCollecting), 0u);
  EXPECT_EQ(rig.delivered(), rig.injected()) << "a drain lost packets";
  EXPECT_FALSE(rig.near().members()[1].collecting);
  EXPECT_FALSE(rig.far().members()[1].distributing);
  EXPECT_TRUE(rig.far().members()[0].distributing);

  // Back: both directions on the member again.
  rig.near().set_member_admin(1, true, monotonic_ns());
  ASSERT_TRUE(rig.converge()) << "member 1 did not come back";
  const std::uint64_t back = rig.crossed(1);
  rig.run_at_rate(kPps, 300 * kMs);
  EXPECT_GT(rig.crossed(1), back);
  rig.engine().stop();
}

// The near end receives `crc_fraction` of cable 1's frames as CRC errors from 0.5 s on; returns
// the share of the far end's traffic still on cable 1 measured over 2 s, starting 1 s after the
// near end's health judged the member degraded.
double incident_share_after_detection(const std::string& withdraw_degraded, double crc_fraction) {
  TwoBondsRig rig(4, ", lacp: {rate: fast, withdraw: {degraded: " + withdraw_degraded +
                         "}}, health: {dampening: {penalty_per_flap: 0}, signals: {crc: "
                         "{degrade_ppm: 1000, recover_ppm: 100, min_frames: 2000}}}");
  rig.engine().start();
  EXPECT_TRUE(rig.converge());
  rig.run_at_rate(kPps, 500 * kMs);
  auto injector = std::make_unique<linkemu::RxErrorInjector>(rig.near_port(1), crc_fraction);
  const std::uint64_t start = monotonic_ns();
  std::uint64_t detected_ns = 0;
  while (detected_ns == 0 && monotonic_ns() - start < 20'000 * kMs) {
    rig.run_at_rate(kPps, 20 * kMs);
    if (rig.near().members()[1].health == health::State::kDegraded) detected_ns = monotonic_ns();
  }
  EXPECT_NE(detected_ns, 0u) << "the CRC errors never degraded the member";
  rig.run_at_rate(kPps, 1000 * kMs);
  const std::uint64_t crossed = rig.crossed(1);
  std::uint64_t total = 0;
  for (std::size_t m = 0; m < 4; ++m)
    total += rig.crossed(m);
  rig.run_at_rate(kPps, 2000 * kMs);
  std::uint64_t total_after = 0;
  for (std::size_t m = 0; m < 4; ++m)
    total_after += rig.crossed(m);
  const double share =
      static_cast<double>(rig.crossed(1) - crossed) / static_cast<double>(total_after - total);
  std::printf(
      "incident (withdraw.degraded %s, %.0f%% CRC errors): detected %.2f s after the "
      "errors began; 1-3 s after detection the far end sent %.4f%% of its traffic "
      "(%llu of %llu frames) on the member; service: %s\n",
      withdraw_degraded.c_str(), crc_fraction * 100, static_cast<double>(detected_ns - start) / 1e9,
      share * 100, static_cast<unsigned long long>(rig.crossed(1) - crossed),
      static_cast<unsigned long long>(total_after - total),
      bond::to_string(rig.near().service(1).verdict().partner).c_str());
  rig.engine().stop();
  injector.reset();  // after stop(): no worker runs its callback any more
  return share;
}

TEST(BothEnds, TheStorageGatewayIncidentBeforeAndAfter) {
  // Before (the partner never told): the far end keeps hashing a quarter of its traffic into
  // the member whose receive side fails.
  EXPECT_GT(incident_share_after_detection("never", 0.02), 0.15);
  // After: it leaves the member within a round trip of the verdict.
  EXPECT_LE(incident_share_after_detection("receive", 0.02), 0.0001);
}

}  // namespace
}  // namespace braid::test
