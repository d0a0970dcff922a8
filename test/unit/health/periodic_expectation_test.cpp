// The lacpdu_missed and bfd_missed signals: packets a peer owes against those it sent, sampled
// once a second like every signal, and what the member health model (shipped defaults) makes of
// it.
#include "health/periodic_expectation.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <vector>

#include "health/member_health.hpp"

namespace braid::health {
namespace {

constexpr std::uint64_t kS = kNsPerSecond;
constexpr std::uint64_t kMs = kNsPerMs;

// A fast-rate partner whose k-th LACPDU leaves at phase + k s (+ jitter(k)), unless lost(k);
// sampled every second from 1 s to `seconds`. Returns the last sample.
CounterSample run(PeriodicExpectation& expect, std::uint64_t seconds, std::uint64_t phase_ns,
                  const std::function<bool(std::uint64_t)>& lost,
                  const std::function<std::int64_t(std::uint64_t)>& jitter_ns = {}) {
  CounterSample last;
  for (std::uint64_t t = 1; t <= seconds; ++t) {
    std::uint64_t received = 0;
    for (std::uint64_t k = 0; k < t + 1; ++k) {
      const std::int64_t at =
          static_cast<std::int64_t>(k * kS + phase_ns) + (jitter_ns ? jitter_ns(k) : 0);
      if (at <= static_cast<std::int64_t>(t * kS) && !lost(k)) ++received;
    }
    last = expect.sample(t * kS, kS, received);
  }
  return last;
}

// The member's once-a-second update at t s, link up, its lacpdu_missed from a fast-rate partner
// that has sent `received` LACPDUs.
void update_at(MemberHealth& member, PeriodicExpectation& expect, std::uint64_t t,
               std::uint64_t received) {
  HealthInputs inputs;
  inputs.carrier = true;
  CounterSnapshot counters{};
  counters[static_cast<std::size_t>(Signal::kLacpduMissed)] = expect.sample(t * kS, kS, received);
  inputs.counters = counters;
  member.update(inputs, t * kS);
}

TEST(PeriodicExpectation, APartnerOnTimeMissesNothingWhateverItsPhaseAndJitter) {
  for (const std::uint64_t phase : std::vector<std::uint64_t>{0, 1, 500 * kMs, 999 * kMs}) {
    PeriodicExpectation expect;
    const CounterSample s = run(
        expect, 100, phase, [](std::uint64_t) { return false; },
        [](std::uint64_t k) {
          return static_cast<std::int64_t>((k * 7919) % 600) * 1'000'000 - 300'000'000;
        });
    EXPECT_EQ(s.errors, 0u) << "phase " << phase;
    EXPECT_EQ(s.frames, 99u) << "one owed per second after the first sample";
  }
}

TEST(PeriodicExpectation, EveryLossButOneInFlightIsCounted) {
  PeriodicExpectation expect;
  // Every third LACPDU lost: 33 of 100.
  const CounterSample s = run(expect, 100, 300 * kMs, [](std::uint64_t k) { return k % 3 == 0; });
  EXPECT_GE(s.errors, 31u);
  EXPECT_LE(s.errors, 33u);
}

TEST(PeriodicExpectation, ABurstBanksOneLacpduOfCreditAtMost) {
  PeriodicExpectation expect;
  expect.sample(0, kS, 0);
  expect.sample(1 * kS, kS, 5);  // 5 at once (state changes): owed 1
  // Then silence for 4 s: 4 owed, 1 credit, 1 in flight: 2 missed.
  CounterSample s{};
  for (std::uint64_t t = 2; t <= 5; ++t)
    s = expect.sample(t * kS, kS, 5);
  EXPECT_EQ(s.errors, 2u);
  EXPECT_EQ(s.frames, 5u);
}

TEST(PeriodicExpectation, NothingIsOwedWhileThereIsNoPartnerAndTheSlowRateOwesLittle) {
  PeriodicExpectation expect;
  expect.sample(0, std::nullopt, 0);
  CounterSample s = expect.sample(10 * kS, std::nullopt, 3);
  EXPECT_EQ(s.errors, 0u);
  EXPECT_EQ(s.frames, 0u);
  s = expect.sample(40 * kS, 30 * kS, 3);  // began owing within the interval: a baseline
  EXPECT_EQ(s.frames, 0u);
  s = expect.sample(100 * kS, 30 * kS, 3);  // slow rate: 2 owed in 60 s, none arrived
  EXPECT_EQ(s.frames, 2u);
  EXPECT_EQ(s.errors, 1u) << "one of the two is in flight";
  s = expect.sample(110 * kS, 30 * kS, 1);  // the count went back (LACP restarted): baseline
  EXPECT_EQ(s.errors, 1u);
}

// A BFD session comes Up a quarter of a second before a 1 s sample: of the 20 packets a 50 ms
// peer would owe over that second it owed 5. The interval it began owing in owes nothing; from
// the next on, a punctual peer misses nothing (it used to read as 15 missed of 20).
TEST(PeriodicExpectation, TheIntervalInWhichThePeerBeganOwingIsABaseline) {
  PeriodicExpectation expect;
  expect.sample(1 * kS, std::nullopt, 2);  // Down: its slow packets
  CounterSample s = expect.sample(2 * kS, 50 * kMs, 7);
  EXPECT_EQ(s.frames, 0u);
  EXPECT_EQ(s.errors, 0u);
  s = expect.sample(3 * kS, 50 * kMs, 27);
  EXPECT_EQ(s.frames, 20u);
  EXPECT_EQ(s.errors, 0u);
  s = expect.sample(4 * kS, 50 * kMs, 37);  // ten lost
  EXPECT_EQ(s.frames, 40u);
  EXPECT_EQ(s.errors, 9u) << "one of them is in flight";
}

// The model with the shipped lacpdu_missed thresholds (200000 / 50000 ppm, 10 frames, 30 s hold,
// 10 s window): a fast-rate partner losing every third LACPDU (never 3 in a row, so LACP's own
// short timeout never expires) degrades the member; when the loss stops it recovers after the
// window and the hold.
TEST(PeriodicExpectation, APartnerLosingEveryThirdLacpduDegradesTheMemberUntilItStops) {
  MemberHealth member({});
  PeriodicExpectation expect;
  std::uint64_t received = 0;
  std::uint64_t degraded_s = 0, recovered_s = 0;
  for (std::uint64_t t = 1; t <= 120; ++t) {
    const bool losing = t >= 10 && t < 40;
    if (!(losing && t % 3 == 0)) ++received;
    update_at(member, expect, t, received);
    if (degraded_s == 0 && member.state() == State::kDegraded) degraded_s = t;
    if (degraded_s != 0 && recovered_s == 0 && member.state() == State::kHealthy) recovered_s = t;
  }
  ASSERT_NE(degraded_s, 0u) << "a third of the LACPDUs lost never degraded the member";
  EXPECT_LT(degraded_s, 25u);
  EXPECT_EQ(
      member.view(120 * kS).signals[static_cast<std::size_t>(Signal::kLacpduMissed)].available,
      true);
  ASSERT_NE(recovered_s, 0u) << "never recovered";
  EXPECT_GE(recovered_s, 40u + 30u) << "recovered before the hold";
  EXPECT_LE(recovered_s, 40u + 10u + 30u + 5u);
  std::printf("every third LACPDU lost from 10 s to 40 s: degraded at %llu s, healthy at %llu s\n",
              static_cast<unsigned long long>(degraded_s),
              static_cast<unsigned long long>(recovered_s));
}

TEST(PeriodicExpectation, OneLostLacpduNowAndThenDegradesNothing) {
  MemberHealth member({});
  PeriodicExpectation expect;
  std::uint64_t received = 0;
  for (std::uint64_t t = 1; t <= 300; ++t) {
    if (t % 20 != 0) ++received;  // one in twenty lost: 50000 ppm
    update_at(member, expect, t, received);
    ASSERT_EQ(member.state(), State::kHealthy) << "at " << t << " s";
  }
}

}  // namespace
}  // namespace braid::health

namespace braid::health {
namespace {

// BFD at 50 ms, detect multiplier 3 (RFC 5880 6.8.4): the silence before a detection is the
// detection's; a session that stays Up losing every third packet still adds up.
TEST(PeriodicExpectation, TheSilenceBeforeADetectionIsNotMissedButASteadyLossIs) {
  constexpr std::uint64_t kPeriod = 50 * kMs;
  constexpr double kDetectMult = 3;
  // Up and on time until 1.0 s; a sample lands 140 ms into a cut, just before the detection.
  PeriodicExpectation cut;
  cut.sample(0, kPeriod, 0, kDetectMult);
  cut.sample(1000 * kMs, kPeriod, 20, kDetectMult);
  EXPECT_EQ(cut.sample(1140 * kMs, kPeriod, 20, kDetectMult).errors, 0u);
  // With the default one packet in flight, the same silence would count as missed.
  PeriodicExpectation strict;
  strict.sample(0, kPeriod, 0);
  strict.sample(1000 * kMs, kPeriod, 20);
  EXPECT_EQ(strict.sample(1140 * kMs, kPeriod, 20).errors, 1u);
  // Every third packet lost for 10 s: 66 of 200, less the allowance.
  PeriodicExpectation lossy;
  lossy.sample(0, kPeriod, 0, kDetectMult);
  CounterSample last;
  for (std::uint64_t t = 1; t <= 10; ++t)
    last = lossy.sample(t * kS, kPeriod, t * 20 - (t * 20) / 3, kDetectMult);
  EXPECT_GE(last.errors, 60u);
  EXPECT_EQ(last.frames, 200u);
}

}  // namespace
}  // namespace braid::health
