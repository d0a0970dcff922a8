// The member health model on a simulated timeline: the incident of issue 15 (a bad optic that
// flaps and corrupts frames) and its variants, checked the way an operator would read the
// member's log, with each timeline printed for the closing note.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "health_sim.hpp"

namespace braid::health::sim {
namespace {

constexpr std::uint64_t kS = kNsPerSecond;
constexpr std::uint64_t kMs = kNsPerMs;
constexpr std::uint64_t kBusyFps = 2'000'000;  // a 25G link carrying ~1000 B frames

std::vector<State> states(const std::vector<TimelineEntry>& changes) {
  std::vector<State> out;
  for (const TimelineEntry& entry : changes)
    out.push_back(entry.event.to);
  return out;
}

// Counts the flaps the dampening saw up to (and including) a time.
int flaps_until(const HealthWorld& world, std::uint64_t time_ns) {
  int flaps = 0;
  for (const TimelineEntry& entry : world.timeline())
    flaps += entry.event.kind == EventKind::kFlap && entry.time_ns <= time_ns;
  return flaps;
}

std::uint64_t first_time_in(const HealthWorld& world, State state) {
  for (const TimelineEntry& entry : world.state_changes()) {
    if (entry.event.to == state) return entry.time_ns;
  }
  return 0;
}

TEST(HealthSim, FlappingEveryTwoSecondsIsSuppressedAtTheThirdFlapAndReusedAfterTheDecay) {
  HealthWorld world({});
  world.at(0, [&] { world.set_carrier(true); });
  world.flap(1 * kS, 2 * kS, 1 * kS, 3);  // down at 1, 3, 5 s for 1 s each, then stable
  world.run_until(200 * kS);
  world.print("flap every 2 s, 3 times, then stable");

  const std::uint64_t suppressed_at = first_time_in(world, State::kSuppressed);
  EXPECT_EQ(suppressed_at, 5 * kS);
  EXPECT_EQ(flaps_until(world, suppressed_at), 3);
  // Penalty 1000 * (1 + a + a^2), a = 2^(-2/30): 2867; reused when it has decayed to 750.
  const double a = std::exp2(-2.0 / 30);
  const double penalty = 1000 * (1 + a + a * a);
  const double reuse_s = 5 + 30 * std::log2(penalty / 750);
  const std::vector<TimelineEntry> changes = world.state_changes();
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().event.from, State::kSuppressed);
  EXPECT_EQ(changes.back().event.to, State::kHealthy);
  EXPECT_NEAR(seconds(changes.back().time_ns), reuse_s, 1e-6);
  EXPECT_NEAR(reuse_s, 63.0, 0.05);
  // Healthy, down, healthy, down, healthy, suppressed (the link's last up changes nothing),
  // healthy: the two flaps before suppression cost two failovers, the third and later none.
  EXPECT_EQ(states(changes),
            (std::vector<State>{State::kHealthy, State::kDown, State::kHealthy, State::kDown,
                                State::kHealthy, State::kSuppressed, State::kHealthy}));
  EXPECT_EQ(world.member().weight_permille(), 1000u);
}

TEST(HealthSim, ALinkThatKeepsFlappingStaysOutAndIsReusedMaxSuppressAfterItsLastFlap) {
  HealthWorld world({});
  world.at(0, [&] { world.set_carrier(true); });
  world.flap(1 * kS, 2 * kS, 1 * kS, 60);  // two minutes of flapping: last down at 119 s
  world.run_until(400 * kS);
  world.print("flap every 2 s for 2 minutes, then stable");

  EXPECT_EQ(first_time_in(world, State::kSuppressed), 5 * kS);
  EXPECT_EQ(flaps_until(world, 400 * kS), 60);
  // No traffic from the third flap until reuse: the weight is 0 the whole time, and the log
  // holds the flaps but no state change between suppression and reuse.
  const auto weights = world.weights();
  ASSERT_GE(weights.size(), 2u);
  EXPECT_EQ(weights[weights.size() - 2], std::make_pair(std::uint64_t{5 * kS}, std::uint32_t{0}));
  // The penalty hit the ceiling (750 * 2^(120/30) = 12000): reuse 120 s after the last flap.
  EXPECT_EQ(weights.back(), std::make_pair(std::uint64_t{(119 + 120) * kS}, std::uint32_t{1000}));
  EXPECT_EQ(world.state_changes().size(), 7u);
}

TEST(HealthSim, CrcErrorsAboveThresholdDegradeToTheConfiguredWeightAndRecoverAfterTheHold) {
  HealthSettings settings;
  settings.degraded_weight_permille = 100;
  HealthWorld world(settings);
  world.at(0, [&] {
    world.set_carrier(true);
    world.set_traffic(kBusyFps);
  });
  world.at(10 * kS, [&] { world.set_crc_ppm(20'000); });  // the optic goes bad: 2% of frames
  world.at(40 * kS, [&] { world.set_crc_ppm(0); });       // replaced
  world.run_until(120 * kS);
  world.print("2% CRC errors from 10 s to 40 s at 2 Mpps");

  const std::vector<TimelineEntry> changes = world.state_changes();
  ASSERT_EQ(changes.size(), 3u);
  // Degraded at the first sample that saw errors: 1 s of 2% in a 10 s window = 2000 ppm > 100.
  EXPECT_EQ(changes[1].time_ns, 11 * kS);
  EXPECT_EQ(changes[1].event.to, State::kDegraded);
  EXPECT_EQ(changes[1].event.reason, Reason::kErrorRate);
  EXPECT_EQ(changes[1].event.evidence.signal, Signal::kCrc);
  EXPECT_NEAR(changes[1].event.evidence.rate_ppm, 2000.0, 1e-6);
  EXPECT_EQ(changes[1].weight_permille, 100u);
  // The last errored second (39-40 s) leaves the window at 50 s; 30 s of hold: healthy at 80 s.
  EXPECT_EQ(changes[2].time_ns, 80 * kS);
  EXPECT_EQ(changes[2].event.to, State::kHealthy);
  EXPECT_EQ(changes[2].weight_permille, 1000u);
}

TEST(HealthSim, AnIsolatedBurstOnABusyLinkStaysHealthyButDegradesALightlyLoadedOne) {
  HealthWorld busy({});
  HealthWorld light({});
  for (HealthWorld* world : {&busy, &light}) {
    world->at(0, [world] { world->set_carrier(true); });
    world->at(20 * kS + 500 * kMs, [world] { world->crc_burst(1000); });  // one bad second
  }
  busy.at(0, [&] { busy.set_traffic(kBusyFps); });
  light.at(0, [&] { light.set_traffic(20'000); });
  busy.run_until(90 * kS);
  light.run_until(90 * kS);
  busy.print("1000 CRC errors in one second at 2 Mpps");
  light.print("1000 CRC errors in one second at 20 kpps");

  // 1000 errors in 20 M frames is 50 ppm: below the 100 ppm threshold.
  EXPECT_EQ(busy.state_changes().size(), 1u);  // the initial up only
  EXPECT_EQ(busy.member().state(), State::kHealthy);
  // 1000 errors in 200,000 frames is 5000 ppm: the same burst is 2.5% of a quiet link's frames.
  EXPECT_EQ(first_time_in(light, State::kDegraded), 21 * kS);
  // Back when the burst's second has left the window (31 s) and 30 s of hold passed.
  EXPECT_EQ(light.member().state(), State::kHealthy);
  EXPECT_EQ(light.state_changes().back().time_ns, 61 * kS);
}

TEST(HealthSim, TheIncidentFlappingEveryFiveSecondsWithLossWhileUp) {
  HealthWorld world({});
  world.at(0, [&] {
    world.set_carrier(true);
    world.set_traffic(kBusyFps);
    world.set_crc_ppm(20'000);
  });
  world.flap(5 * kS, 5 * kS, 500 * kMs, 12);  // a minute of flapping, 0.5 s down each time
  world.run_until(300 * kS);
  world.print("the incident: 2% CRC errors while up, flapping every 5 s for a minute");

  // The loss degrades it at the first sample that has a second of traffic behind it, before
  // any flap: the member carries a tenth of its share while it still looks "up".
  EXPECT_EQ(first_time_in(world, State::kDegraded), 1 * kS);
  EXPECT_EQ(first_time_in(world, State::kSuppressed), 15 * kS);  // the third flap
  EXPECT_EQ(flaps_until(world, 15 * kS), 3);
  // After the flapping stops the optic still corrupts 2% of frames: reused, but degraded.
  EXPECT_EQ(world.member().state(), State::kDegraded);
  EXPECT_EQ(world.member().weight_permille(), 100u);
}

TEST(HealthSim, BfdDownTakesAMemberWithCarrierOutAfterTheDownDelay) {
  HealthSettings settings;
  settings.down_delay_ns = 50 * kMs;
  settings.up_delay_ns = 2 * kS;
  HealthWorld world(settings);
  world.at(0, [&] {
    world.set_carrier(true);
    world.set_bfd(BfdStatus::kUp);
  });
  world.at(10 * kS, [&] { world.set_bfd(BfdStatus::kDown); });  // far end's forwarding died
  world.at(20 * kS, [&] { world.set_bfd(BfdStatus::kUp); });
  world.run_until(30 * kS);
  world.print("BFD down at 10 s, up at 20 s (down_delay 50 ms, up_delay 2 s)");

  const std::vector<TimelineEntry> changes = world.state_changes();
  ASSERT_EQ(changes.size(), 5u);
  EXPECT_EQ(changes[0].time_ns, 0u);  // up_delay_pending
  EXPECT_EQ(changes[1].time_ns, 2 * kS);
  EXPECT_EQ(changes[2].time_ns, 10 * kS + 50 * kMs);
  EXPECT_EQ(changes[2].event.reason, Reason::kBfdDown);
  EXPECT_EQ(changes[3].event.reason, Reason::kUpDelayPending);
  EXPECT_EQ(changes[4].time_ns, 22 * kS);
  EXPECT_EQ(changes[4].event.to, State::kHealthy);
}

}  // namespace
}  // namespace braid::health::sim
