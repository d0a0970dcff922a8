// Two BFD sessions on a simulated member link, checked the way an operator would check a BFD
// deployment: how long until Up, how long a dead far end takes to notice, whether loss makes it
// flap, and what a restarted partner does. All in simulated time, with seeded loss and jitter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "bfd_world.hpp"
#include "report.hpp"

namespace braid::bfd::sim {
namespace {

using braid::sim::report;
using braid::sim::seconds;

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kSecond = 1'000 * kMs;
constexpr std::uint32_t kFastUs = 10'000;  // 10 ms x 3, the fastest braid allows
constexpr std::uint64_t kDetectionNs = 3 * kFastUs * kNsPerUs;

// 10 ms x 3 (the default multiplier).
SessionConfig fast(std::uint32_t discriminator) {
  return {.local_discriminator = discriminator,
          .desired_min_tx_us = kFastUs,
          .required_min_rx_us = kFastUs};
}

std::string ms(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(ns) / 1e6);
  return text;
}

// Both ends Up and past their Poll Sequences (at the fast rate), end 1 starting `offset_ns`
// after end 0.
struct Pair {
  explicit Pair(const LinkSpec& link = {}, std::uint64_t seed = 1,
                std::uint64_t offset_ns = 300 * kMs)
      : world(link, seed) {
    world.start(0, fast(0x0a0a0a0a));
    world.run_until(offset_ns);
    world.start(1, fast(0x0b0b0b0b));
  }
  bool both_up() {
    return world.session(0).state() == State::kUp && world.session(1).state() == State::kUp;
  }
  bool both_fast() {
    return both_up() && !world.session(0).poll_active() && !world.session(1).poll_active();
  }
  std::optional<std::uint64_t> come_up(std::uint64_t limit_ns = 10 * kSecond) {
    return world.run_until_true([this] { return both_fast(); }, world.now() + limit_ns);
  }

  World world;
};

class BfdSimComeUp : public ::testing::TestWithParam<LinkSpec> {};

TEST_P(BfdSimComeUp, WithinAFewSlowTxPeriods) {
  Pair pair(GetParam());
  const std::uint64_t start = pair.world.now();
  const auto up = pair.come_up();
  ASSERT_TRUE(up.has_value());
  // Down -> Init -> Up takes at most two of the 1 s slow periods of 6.8.3 (our first packet, then
  // the peer's Init), and the Poll Sequence to the fast rate one fast round trip more.
  EXPECT_LE(*up - start, 2 * kSecond + 3 * kFastUs * kNsPerUs);
  const LinkSpec& link = GetParam();
  report(std::string("bfd up: ") + to_string(link.encapsulation) + (link.ipv6 ? " ipv6" : " ipv4"),
         seconds(*up - start), "second session started -> both Up at 10 ms");
  // Then about 100 to 133 packets a second each way (10 ms, less 0-25 % jitter).
  const std::uint64_t sent_before = pair.world.session(0).counters().packets_out;
  pair.world.run_until(pair.world.now() + kSecond);
  const std::uint64_t sent = pair.world.session(0).counters().packets_out - sent_before;
  EXPECT_GE(sent, 100u);
  EXPECT_LE(sent, 134u);
  EXPECT_EQ(pair.world.session(0).counters().rejected_total, 0u);
  EXPECT_EQ(pair.world.session(1).remote_discriminator(), 0x0a0a0a0au);
}

INSTANTIATE_TEST_SUITE_P(Encapsulations, BfdSimComeUp,
                         ::testing::Values(LinkSpec{50'000, 0.0, Encapsulation::kMicroBfd, false},
                                           LinkSpec{50'000, 0.0, Encapsulation::kMicroBfd, true},
                                           LinkSpec{50'000, 0.0, Encapsulation::kSingleHop, false},
                                           LinkSpec{50'000, 0.0, Encapsulation::kSingleHop, true}));

TEST(BfdSim, CutLinkIsDetectedWithinTheDetectionTime) {
  // The Detection Time runs from the last packet received, which left the far end at most one
  // TX interval (10 ms) before the cut: both ends go Down 20-30 ms after it, exactly 30 ms after
  // the last packet they heard. Twenty cuts at different phases of the jitter.
  Pair pair;
  ASSERT_TRUE(pair.come_up().has_value());
  std::uint64_t earliest = ~0ull;
  std::uint64_t latest = 0;
  for (int round = 0; round < 20; ++round) {
    pair.world.run_until(pair.world.now() + kSecond +
                         static_cast<std::uint64_t>(round) * 1'300'000);
    ASSERT_TRUE(pair.both_fast()) << round;
    const std::uint64_t cut_at = pair.world.now();
    const std::uint64_t expirations = pair.world.session(0).counters().detection_expirations;
    pair.world.cut(true);
    const auto down = pair.world.run_until_true(
        [&] {
          return pair.world.session(0).state() == State::kDown &&
                 pair.world.session(1).state() == State::kDown;
        },
        cut_at + kSecond);
    ASSERT_TRUE(down.has_value()) << round;
    for (int end = 0; end < World::kEnds; ++end) {
      const StateChange& change = pair.world.changes(end).back();
      EXPECT_EQ(change.from, State::kUp);
      EXPECT_EQ(change.diag, Diag::kControlDetectionTimeExpired);
      const std::uint64_t after_cut = change.time_ns - cut_at;
      EXPECT_GT(after_cut, kDetectionNs - kFastUs * kNsPerUs) << round;
      EXPECT_LE(after_cut, kDetectionNs) << round;
      EXPECT_EQ(change.time_ns - pair.world.arrivals(end).back(), kDetectionNs) << round;
      earliest = std::min(earliest, after_cut);
      latest = std::max(latest, after_cut);
    }
    EXPECT_EQ(pair.world.session(0).counters().detection_expirations, expirations + 1);
    pair.world.cut(false);
    ASSERT_TRUE(pair.come_up().has_value()) << round;
  }
  report("bfd cut detected (earliest of 40)", seconds(earliest),
         "cut -> Down, 10 ms x 3 (" + ms(earliest) + ")");
  report("bfd cut detected (latest of 40)", seconds(latest),
         "cut -> Down, 10 ms x 3 (" + ms(latest) + ")");
}

TEST(BfdSim, OnePercentLossNeverFlapsAtTenMsTimesThree) {
  Pair pair({50'000, 0.01, Encapsulation::kMicroBfd, false}, 15);
  ASSERT_TRUE(pair.come_up().has_value());
  const std::size_t changes[] = {pair.world.changes(0).size(), pair.world.changes(1).size()};
  const std::uint64_t from = pair.world.now();
  const std::uint64_t lost_before = pair.world.frames_lost();
  const std::uint64_t sent_before = pair.world.frames_sent();
  pair.world.run_until(from + 60 * kSecond);
  std::uint64_t longest_silence = 0;
  for (int end = 0; end < World::kEnds; ++end) {
    EXPECT_EQ(pair.world.changes(end).size(), changes[end]) << end;
    EXPECT_EQ(pair.world.session(end).state(), State::kUp);
    EXPECT_EQ(pair.world.session(end).counters().detection_expirations, 0u);
    const auto& arrivals = pair.world.arrivals(end);
    for (std::size_t i = 1; i < arrivals.size(); ++i) {
      if (arrivals[i - 1] >= from) {
        longest_silence = std::max(longest_silence, arrivals[i] - arrivals[i - 1]);
      }
    }
  }
  const std::uint64_t lost = pair.world.frames_lost() - lost_before;
  const std::uint64_t sent = pair.world.frames_sent() - sent_before;
  // The loss really happened: about 1 % of some 14 000 frames.
  EXPECT_GT(lost, sent / 200);
  EXPECT_LT(lost, sent / 50);
  EXPECT_LT(longest_silence, kDetectionNs);
  report("bfd 1% loss, 60 s, 10 ms x 3", 0.0,
         "flaps: 0; " + std::to_string(lost) + " of " + std::to_string(sent) +
             " frames lost; longest silence " + ms(longest_silence) + " (detection 30 ms)");
}

TEST(BfdSim, RestartedPartnerWithNewDiscriminatorComesBackUp) {
  Pair pair;
  ASSERT_TRUE(pair.come_up().has_value());
  pair.world.run_until(pair.world.now() + kSecond);
  const std::size_t before = pair.world.changes(0).size();
  // The partner restarts at once: a fresh session, Down, with a new discriminator. Its first
  // packet says Down (6.8.6: Up + Down -> Down, neighbor signaled session down) and names its new
  // discriminator, which our packets carry from then on.
  const std::uint64_t restart = pair.world.now();
  pair.world.start(1, fast(0x0b0b0b0c));
  const auto up = pair.come_up();
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(pair.world.session(0).remote_discriminator(), 0x0b0b0b0cu);
  // Down, then Up again, never through a Detection Time expiry: our Down takes the new partner
  // to Init, and its Init takes us from Down straight to Up (6.8.6) or through Init when its
  // second Down comes first.
  const std::vector<StateChange>& changes = pair.world.changes(0);
  ASSERT_GE(changes.size(), before + 2);
  EXPECT_EQ(changes[before].from, State::kUp);
  EXPECT_EQ(changes[before].to, State::kDown);
  EXPECT_EQ(changes[before].diag, Diag::kNeighborSignaledSessionDown);
  EXPECT_EQ(changes.back().to, State::kUp);
  EXPECT_EQ(pair.world.session(0).counters().detection_expirations, 0u);
  EXPECT_LT(changes[before].time_ns - restart, 10 * kMs);  // its first packet, at once
  EXPECT_LE(*up - restart, 2 * kSecond + kDetectionNs);
  report("bfd partner restart (new discriminator)", seconds(*up - restart),
         "restart -> both Up again at 10 ms");
}

TEST(BfdSim, SilentPartnerRestartIsDetectedThenComesBackUp) {
  // The partner dies (nothing sent for 2 s), then comes back with a new discriminator.
  Pair pair;
  ASSERT_TRUE(pair.come_up().has_value());
  const std::uint64_t dead = pair.world.now();
  pair.world.cut(true);
  pair.world.run_until(dead + 2 * kSecond);
  EXPECT_EQ(pair.world.session(0).state(), State::kDown);
  EXPECT_EQ(pair.world.changes(0).back().diag, Diag::kControlDetectionTimeExpired);
  EXPECT_EQ(pair.world.session(0).remote_discriminator(), 0u);
  pair.world.cut(false);
  pair.world.start(1, fast(0x0b0b0b0c));
  const auto up = pair.come_up();
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(pair.world.session(0).remote_discriminator(), 0x0b0b0b0cu);
}

TEST(BfdSim, AdminDownTakesThePeerDownWithoutADetectionExpiry) {
  Pair pair;
  ASSERT_TRUE(pair.come_up().has_value());
  pair.world.session(0).set_admin_down(true, pair.world.now());
  pair.world.run_until(pair.world.now() + 100 * kMs);
  EXPECT_EQ(pair.world.session(1).state(), State::kDown);
  EXPECT_EQ(pair.world.session(1).local_diag(), Diag::kNeighborSignaledSessionDown);
  EXPECT_EQ(pair.world.session(1).counters().detection_expirations, 0u);
  pair.world.session(0).set_admin_down(false, pair.world.now());
  EXPECT_TRUE(pair.come_up().has_value());
}

}  // namespace
}  // namespace braid::bfd::sim
