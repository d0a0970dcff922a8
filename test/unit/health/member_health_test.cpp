#include "health/member_health.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace braid::health {
namespace {

constexpr std::uint64_t kS = kNsPerSecond;
constexpr std::uint64_t kMs = kNsPerMs;

HealthInputs link_up() {
  HealthInputs inputs;
  inputs.carrier = true;
  return inputs;
}
HealthInputs link_down() {
  return {};
}

std::vector<std::string> lines(const std::vector<HealthEvent>& events) {
  std::vector<std::string> out;
  for (const HealthEvent& event : events)
    out.push_back(to_string(event));
  return out;
}

TEST(MemberHealth, StartsDownAndComesUpWithCarrier) {
  MemberHealth member({});
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.weight_permille(), 0u);
  const auto events = member.update(link_up(), kS);
  EXPECT_EQ(member.state(), State::kHealthy);
  EXPECT_EQ(member.reason(), Reason::kNone);
  EXPECT_EQ(member.weight_permille(), 1000u);
  EXPECT_EQ(lines(events), std::vector<std::string>{"down -> healthy (was carrier_down)"});
  EXPECT_FALSE(member.next_deadline_ns().has_value());
}

TEST(MemberHealth, CarrierLossIsDownAtOnceWithoutDownDelay) {
  MemberHealth member({});
  member.update(link_up(), kS);
  const auto events = member.update(link_down(), 2 * kS);
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.reason(), Reason::kCarrierDown);
  EXPECT_EQ(member.evidence().since_ns, 2 * kS);
  EXPECT_EQ(lines(events),
            (std::vector<std::string>{"flap: penalty 1000", "healthy -> down: carrier_down"}));
}

TEST(MemberHealth, DownDelayRidesOutAShortGlitchAndIsNoFlap) {
  HealthSettings settings;
  settings.down_delay_ns = 200 * kMs;
  MemberHealth member(settings);
  member.update(link_up(), kS);
  EXPECT_TRUE(member.update(link_down(), 2 * kS).empty());
  EXPECT_EQ(member.state(), State::kHealthy);  // still carrying traffic
  EXPECT_EQ(member.next_deadline_ns(), 2 * kS + 200 * kMs);
  EXPECT_EQ(member.view(2 * kS).link_pending_until_ns, 2 * kS + 200 * kMs);
  member.update(link_up(), 2 * kS + 150 * kMs);  // back before the delay ran out
  EXPECT_FALSE(member.next_deadline_ns().has_value());
  member.update(link_up(), 3 * kS);
  EXPECT_EQ(member.state(), State::kHealthy);
  EXPECT_EQ(member.view(3 * kS).flaps, 0u);
  // A loss that lasts the delay takes it down when the delay ends.
  member.update(link_down(), 4 * kS);
  member.update(link_down(), 4 * kS + 199 * kMs);
  EXPECT_EQ(member.state(), State::kHealthy);
  member.update(link_down(), 4 * kS + 200 * kMs);
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.view(5 * kS).flaps, 1u);
}

TEST(MemberHealth, UpDelayHoldsTheMemberDownUntilTheLinkStayedUp) {
  HealthSettings settings;
  settings.up_delay_ns = 2 * kS;
  MemberHealth member(settings);
  auto events = member.update(link_up(), 10 * kS);
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.reason(), Reason::kUpDelayPending);
  EXPECT_EQ(member.evidence().until_ns, 12 * kS);
  EXPECT_EQ(lines(events),
            std::vector<std::string>{"down: carrier_down -> up_delay_pending (up in 2.0 s)"});
  EXPECT_EQ(member.next_deadline_ns(), 12 * kS);
  // It bounces during the delay: the delay starts again from the next up.
  member.update(link_down(), 11 * kS);
  EXPECT_EQ(member.reason(), Reason::kCarrierDown);
  EXPECT_EQ(member.view(11 * kS).flaps, 0u);  // it never was up: no flap
  member.update(link_up(), 11500 * kMs);
  member.update(link_up(), 12 * kS);
  EXPECT_EQ(member.state(), State::kDown);
  events = member.update(link_up(), 13500 * kMs);
  EXPECT_EQ(member.state(), State::kHealthy);
  EXPECT_EQ(lines(events), std::vector<std::string>{"down -> healthy (was up_delay_pending)"});
}

TEST(MemberHealth, BfdDownTakesTheMemberDownWhileCarrierIsUp) {
  MemberHealth member({});
  HealthInputs inputs = link_up();
  inputs.bfd = BfdStatus::kDown;  // configured, not up yet
  member.update(inputs, kS);
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.reason(), Reason::kBfdDown);
  inputs.bfd = BfdStatus::kUp;
  member.update(inputs, 2 * kS);
  EXPECT_EQ(member.state(), State::kHealthy);
  inputs.bfd = BfdStatus::kDown;  // far end's forwarding died
  const auto events = member.update(inputs, 3 * kS);
  EXPECT_EQ(member.reason(), Reason::kBfdDown);
  EXPECT_EQ(lines(events),
            (std::vector<std::string>{"flap: penalty 1000", "healthy -> down: bfd_down"}));
}

TEST(MemberHealth, APfcStormTakesTheMemberDownWithoutAFlap) {
  MemberHealth member(HealthSettings{});
  HealthInputs inputs;
  inputs.carrier = true;
  member.update(inputs, 1 * kS);
  ASSERT_EQ(member.state(), State::kHealthy);
  inputs.pfc_storm = true;
  member.update(inputs, 2 * kS);
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.reason(), Reason::kPfcStorm);
  EXPECT_EQ(member.weight_permille(), 0u);
  inputs.pfc_storm = false;
  member.update(inputs, 3 * kS);
  EXPECT_EQ(member.state(), State::kHealthy);
  EXPECT_EQ(member.view(3 * kS).flaps, 0u);
}

TEST(MemberHealth, TheThirdFlapSuppressesUntilThePenaltyDecays) {
  MemberHealth member({});
  std::vector<std::string> log;
  for (std::uint64_t t = 0; t < 3; ++t) {  // down at 1 s, 6 s, 11 s; up 1 s later each time
    for (const auto& e : member.update(link_up(), (5 * t) * kS))
      log.push_back(to_string(e));
    for (const auto& e : member.update(link_down(), (5 * t + 1) * kS))
      log.push_back(to_string(e));
  }
  EXPECT_EQ(member.state(), State::kSuppressed);
  EXPECT_EQ(member.reason(), Reason::kFlapSuppressed);
  EXPECT_EQ(member.weight_permille(), 0u);
  EXPECT_EQ(log.back(), "healthy -> suppressed: flap_suppressed (penalty 2685, reuse in 55.2 s)");
  const std::uint64_t reuse = member.evidence().until_ns;
  EXPECT_EQ(member.next_deadline_ns(), reuse);
  // The link comes back and stays: still suppressed, no state change logged.
  EXPECT_TRUE(member.update(link_up(), 12 * kS).empty());
  EXPECT_EQ(member.state(), State::kSuppressed);
  member.update(link_up(), reuse - 1);
  EXPECT_EQ(member.state(), State::kSuppressed);
  EXPECT_EQ(lines(member.update(link_up(), reuse)),
            std::vector<std::string>{"suppressed -> healthy (was flap_suppressed)"});
  EXPECT_EQ(member.weight_permille(), 1000u);
}

TEST(MemberHealth, SuppressionEndsDownWhenTheLinkIsStillDown) {
  MemberHealth member({});
  for (std::uint64_t t = 0; t < 3; ++t) {
    member.update(link_up(), 2 * t * kS);
    member.update(link_down(), (2 * t + 1) * kS);
  }
  ASSERT_EQ(member.state(), State::kSuppressed);
  const std::uint64_t reuse = *member.next_deadline_ns();
  member.update(link_down(), reuse);
  EXPECT_EQ(member.state(), State::kDown);
  EXPECT_EQ(member.reason(), Reason::kCarrierDown);
}

// Counters of a link carrying `fps` frames a second with `errors` CRC errors; only crc present.
struct CrcLink {
  CounterSample crc;
  HealthInputs second(std::uint64_t errors, std::uint64_t frames) {
    crc.errors += errors;
    crc.frames += frames;
    HealthInputs inputs = link_up();
    inputs.counters.emplace();
    (*inputs.counters)[static_cast<std::size_t>(Signal::kCrc)] = crc;
    return inputs;
  }
};

TEST(MemberHealth, AnErrorRateAboveThresholdDegradesToTheConfiguredWeight) {
  HealthSettings settings;
  settings.degraded_weight_permille = 250;
  MemberHealth member(settings);
  CrcLink link;
  member.update(link.second(0, 0), 0);
  member.update(link.second(0, 1'000'000), kS);
  const auto events = member.update(link.second(20'000, 1'000'000), 2 * kS);  // 2% in a second
  EXPECT_EQ(member.state(), State::kDegraded);
  EXPECT_EQ(member.reason(), Reason::kErrorRate);
  EXPECT_EQ(member.evidence().signal, Signal::kCrc);
  EXPECT_DOUBLE_EQ(member.evidence().rate_ppm, 10'000.0);
  EXPECT_EQ(member.evidence().threshold_ppm, 100u);
  EXPECT_EQ(member.weight_permille(), 250u);
  EXPECT_EQ(lines(events), (std::vector<std::string>{
                               "signal crc degraded: 10000 ppm > 100 ppm",
                               "healthy -> degraded: error_rate:crc (10000 ppm > 100 ppm)"}));
  EXPECT_EQ(reason_string(member.reason(), member.evidence().signal), "error_rate:crc");
}

TEST(MemberHealth, ADownLinkDoesNotCountTowardsRecovery) {
  HealthSettings settings;
  settings.signals[static_cast<std::size_t>(Signal::kCrc)].recover_hold_ns = 5 * kS;
  MemberHealth member(settings);
  CrcLink link;
  member.update(link.second(0, 0), 0);
  member.update(link.second(50'000, 1'000'000), kS);
  ASSERT_EQ(member.state(), State::kDegraded);
  // A minute without carrier: the window empties, the signal stays degraded.
  for (std::uint64_t s = 2; s <= 60; ++s) {
    HealthInputs down = link.second(0, 0);
    down.carrier = false;
    member.update(down, s * kS);
  }
  // Back up and clean: degraded until it has been clean for the hold, with the link up.
  member.update(link.second(0, 1'000'000), 61 * kS);
  EXPECT_EQ(member.state(), State::kDegraded);
  member.update(link.second(0, 1'000'000), 65 * kS);
  EXPECT_EQ(member.state(), State::kDegraded);
  member.update(link.second(0, 1'000'000), 66 * kS);
  EXPECT_EQ(member.state(), State::kHealthy);
}

TEST(MemberHealth, AbsentCountersAreUnavailableAndLoggedOnce) {
  MemberHealth member({});
  CrcLink link;
  auto events = member.update(link.second(0, 0), 0);
  ASSERT_EQ(events.size(), kSignalCount - 1 + 1);  // every signal but crc, then the state
  EXPECT_EQ(to_string(events[0]),
            "signal symbol unavailable: the member's counter source has no counter for it");
  events = member.update(link.second(0, 1000), kS);
  EXPECT_TRUE(events.empty());
  const HealthView view = member.view(kS);
  EXPECT_TRUE(view.signals[static_cast<std::size_t>(Signal::kCrc)].available);
  EXPECT_FALSE(view.signals[static_cast<std::size_t>(Signal::kSymbol)].available);
  EXPECT_EQ(view.signals[static_cast<std::size_t>(Signal::kCrc)].frames, 1000u);
}

TEST(MemberHealth, ACounterThatDisappearsIsNoLongerJudged) {
  MemberHealth member({});
  CrcLink link;
  member.update(link.second(0, 0), 0);
  member.update(link.second(50'000, 1'000'000), kS);
  ASSERT_EQ(member.state(), State::kDegraded);
  HealthInputs gone = link_up();
  gone.counters.emplace();  // the source lost its counters
  const auto events = member.update(gone, 2 * kS);
  EXPECT_EQ(member.state(), State::kHealthy);
  EXPECT_EQ(to_string(events.front()),
            "signal crc unavailable: the member's counter source has no counter for it");
  EXPECT_EQ(to_string(events.back()), "degraded -> healthy (was error_rate:crc)");
}

TEST(MemberHealth, NamesFollowTheEnums) {
  EXPECT_STREQ(to_string(State::kSuppressed), "suppressed");
  EXPECT_STREQ(to_string(State::kDegraded), "degraded");
  EXPECT_STREQ(to_string(Reason::kNone), "none");
  EXPECT_STREQ(to_string(Reason::kUpDelayPending), "up_delay_pending");
  EXPECT_STREQ(to_string(Reason::kErrorRate), "error_rate");
  EXPECT_STREQ(to_string(Reason::kPfcStorm), "pfc_storm");
  EXPECT_STREQ(to_string(BfdStatus::kNotConfigured), "not_configured");
  EXPECT_STREQ(to_string(BfdStatus::kUp), "up");
  EXPECT_EQ(reason_string(Reason::kErrorRate, Signal::kRoceRetransmit),
            "error_rate:roce_retransmit");
}

TEST(MemberHealth, SettingsAreCheckedAsAWhole) {
  EXPECT_EQ(settings_error(HealthSettings{}), "");
  HealthSettings weight;
  weight.degraded_weight_permille = 1500;
  EXPECT_EQ(settings_error(weight), "degraded_weight_permille (1500) must be at most 1000");
  HealthSettings signal;
  signal.signals[static_cast<std::size_t>(Signal::kDiscards)].min_frames = 0;
  EXPECT_EQ(settings_error(signal), "signal discards: min_frames must be at least 1");
}

}  // namespace
}  // namespace braid::health
