// Issue 15's incident on real ring ports, with the link emulator's carrier flaps
// (linkemu/link_flapper.hpp): one of two members flaps every second, five times. With the
// shipped dampening defaults (penalty 1000 per flap, suppress above 2000, reuse at 750) and a
// 3 s half-life it comes back after the 1st and 2nd flaps and is suppressed at the 3rd
// (penalty 2424); its 4th and 5th flaps change nothing; traffic stays on the healthy member,
// whose buckets move only back to the flapping one as it returns; the flapping member returns
// only when its penalty has decayed to the reuse threshold.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "bond_rig.hpp"
#include "linkemu/link_flapper.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr double kPps = 20'000;

TEST(MemberHealth,
     TheIncidentAFlappingMemberIsContainedAtItsThirdFlapAndTheHealthyOneKeepsItsFlows) {
  BondRig rig(2, ", mode: static, link_poll_us: 200, health: {dampening: {half_life_s: 3}}");
  rig.engine().start();
  rig.send(10'000);
  ASSERT_GT(rig.received(0), 0u);
  ASSERT_GT(rig.received(1), 0u);
  std::vector<bond::MemberIndex> last = rig.bond().assignment();
  health::State previous = rig.bond().members()[0].health;
  const double half_life_s = 3;
  const linkemu::FlapPattern pattern{.period_ns = 1000 * kMs, .down_ns = 200 * kMs, .count = 5};
  linkemu::LinkFlapper flapper(rig.member(0).port_id(), pattern, monotonic_ns() + 500 * kMs);

  std::array<bool, 6> healthy_after_flap{};  // by flaps begun
  std::uint32_t suppressed_at_flap = 0;
  std::uint64_t suppressed_ns = 0, reused_ns = 0;
  std::uint64_t healthy_moved = 0, healthy_left = 0, left_suppression = 0;
  std::uint64_t received_suppressed = 0;
  bool checked_quiet = false;
  const std::uint64_t deadline = monotonic_ns() + 30'000 * kMs;
  while (reused_ns == 0 && monotonic_ns() < deadline) {
    rig.run_at_rate(kPps, 5 * kMs);
    flapper.poll(monotonic_ns());
    // A bucket leaves the healthy member only to go back to the flapping one as it returns
    // (its share back); never while that one flaps, is down or is suppressed.
    const std::vector<bond::MemberIndex> now = rig.bond().assignment();
    const health::State state = rig.bond().members()[0].health;
    const bool returned = state == health::State::kHealthy && previous != state;
    for (std::size_t b = 0; b < now.size(); ++b)
      if (last[b] == 1 && now[b] != 1 && !(returned && now[b] == 0)) ++healthy_moved;
    last = now;
    previous = state;
    if (rig.bond().members()[1].health != health::State::kHealthy) ++healthy_left;
    if (suppressed_ns == 0) {
      if (state == health::State::kHealthy) healthy_after_flap[flapper.flaps()] = true;
      if (state == health::State::kSuppressed) {
        suppressed_ns = monotonic_ns();
        suppressed_at_flap = flapper.flaps();
        rig.settle();
        received_suppressed = rig.received(0);
      }
      continue;
    }
    if (state == health::State::kHealthy && flapper.done(monotonic_ns())) {
      reused_ns = monotonic_ns();
    } else if (state != health::State::kSuppressed) {
      ++left_suppression;
    } else if (!checked_quiet && flapper.done(monotonic_ns()) &&
               monotonic_ns() > flapper.last_down_ns() + 4000 * kMs) {
      // Suppressed with its link up for seconds: it carried nothing.
      rig.settle();
      EXPECT_TRUE(rig.bond().members()[0].link_up);
      EXPECT_EQ(rig.bond().members()[0].buckets, 0u);
      EXPECT_EQ(rig.received(0), received_suppressed) << "a suppressed member carried traffic";
      checked_quiet = true;
    }
  }
  ASSERT_NE(suppressed_ns, 0u) << "never suppressed";
  ASSERT_NE(reused_ns, 0u) << "never reused";
  EXPECT_TRUE(healthy_after_flap[1]) << "not back after the 1st flap";
  EXPECT_TRUE(healthy_after_flap[2]) << "not back after the 2nd flap";
  EXPECT_EQ(suppressed_at_flap, 3u) << "suppressed at the wrong flap";
  EXPECT_EQ(left_suppression, 0u) << "the 4th and 5th flaps showed through the suppression";
  EXPECT_TRUE(checked_quiet);
  EXPECT_EQ(healthy_moved, 0u) << "a bucket of the healthy member moved but to a returning member";
  EXPECT_EQ(healthy_left, 0u) << "the healthy member was ever less than healthy";
  const health::HealthView reused = rig.bond().health_view(0, reused_ns);
  EXPECT_EQ(reused.flaps, 5u);
  EXPECT_LE(reused.penalty, 750.0 + 1.0) << "reused before the penalty decayed to reuse";
  // The model: five flaps 1 s apart leave 1000 (1 - a^5) / (1 - a), a = 2^(-1/3), decaying to
  // 750 after half_life * log2(penalty / 750).
  const double a = std::exp2(-1.0 / half_life_s);
  const double penalty = 1000 * (1 - std::pow(a, 5)) / (1 - a);
  const double model_s = half_life_s * std::log2(penalty / 750.0);
  const double after_s = static_cast<double>(reused_ns - flapper.last_down_ns()) / 1e9;
  std::printf(
      "flapping member: suppressed at flap %u, penalty %.0f after the 5th, reused %.2f s "
      "after it (model %.2f s)\n",
      suppressed_at_flap, penalty, after_s, model_s);
  EXPECT_GT(after_s, model_s - 0.5);
  EXPECT_LT(after_s, model_s + 1.5);
  EXPECT_TRUE(rig.bond().members()[0].distributing);
  const std::uint64_t on_member0 = rig.received(0);
  rig.send(10'000);
  EXPECT_GT(rig.received(0), on_member0) << "reused, but it carries nothing";
  rig.engine().stop();
}

}  // namespace
}  // namespace braid::test
