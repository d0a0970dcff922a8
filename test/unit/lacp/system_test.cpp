// LacpSystem as the bond sees it: configuration checks, frame handling, counters, outputs.
#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>
#include <vector>

#include "golden_frames.hpp"
#include "lacp/frame.hpp"
#include "lacp/key.hpp"
#include "lacp/lacp_system.hpp"

namespace braid::lacp {
namespace {

struct Sent {
  std::size_t port;
  std::vector<std::uint8_t> frame;
};

SystemConfig system_config(std::uint8_t id) {
  SystemConfig system;
  system.system_mac = {0x02, 0, 0, 0, 0, id};
  return system;
}

std::vector<PortConfig> port_configs(std::uint8_t id, int count) {
  std::vector<PortConfig> ports;
  for (int i = 0; i < count; ++i) {
    PortConfig port;
    port.port_number = static_cast<std::uint16_t>(i + 1);
    port.port_mac = {0x02, 0, 0, id, 1, static_cast<std::uint8_t>(i + 1)};
    ports.push_back(port);
  }
  return ports;
}

class SystemTest : public ::testing::Test {
 protected:
  SystemTest()
      : system_(system_config(1), port_configs(1, 2), [this](std::size_t port, ByteSpan frame) {
          if (refuse_ > 0) {
            --refuse_;
            return false;
          }
          sent_.push_back({port, {frame.begin(), frame.end()}});
          return true;
        }) {}

  unsigned refuse_ = 0;  // the next frames the "port" refuses
  LacpSystem system_;
  std::vector<Sent> sent_;
};

TEST(LacpSystemConfig, RejectsPortNumberZeroAndDuplicates) {
  auto ports = port_configs(1, 2);
  ports[1].port_number = 0;
  EXPECT_THROW(LacpSystem(system_config(1), ports, nullptr), std::invalid_argument);
  ports[1].port_number = 1;
  EXPECT_THROW(LacpSystem(system_config(1), ports, nullptr), std::invalid_argument);
  EXPECT_THROW(LacpSystem(SystemConfig{}, port_configs(1, 1), nullptr), std::invalid_argument);
}

TEST_F(SystemTest, LinkUpSendsALacpduAtOnce) {
  EXPECT_TRUE(sent_.empty());
  system_.on_link(0, true, 25'000, true, 0);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].port, 0u);
  ASSERT_EQ(sent_[0].frame.size(), 124u);
  EXPECT_EQ(sent_[0].frame[14], kLacpSubtype);
  EXPECT_EQ(system_.counters(0).lacpdu_tx, 1u);
  EXPECT_EQ(system_.port(0).actor.key, derive_port_key(25'000, true, 0));
}

TEST_F(SystemTest, MarkerRequestAnsweredByteExact) {
  SystemTest::system_.on_link(1, true, 25'000, true, 0);
  sent_.clear();
  const SlowFrame request = golden::marker_request_frame();
  // Respond from port 1 (index 1), whose MAC is 02:00:00:01:01:02.
  system_.on_frame(1, ByteSpan(request), 10);
  ASSERT_EQ(sent_.size(), 1u);
  SlowFrame expected = golden::marker_response_frame();
  const MacAddress mac = system_.port(1).config.port_mac;
  std::copy(mac.begin(), mac.end(), expected.begin() + 6);
  EXPECT_EQ(sent_[0].frame, std::vector<std::uint8_t>(expected.begin(), expected.end()));
  EXPECT_EQ(system_.counters(1).marker_rx, 1u);
  EXPECT_EQ(system_.counters(1).marker_response_tx, 1u);
}

TEST_F(SystemTest, MarkerFloodIsRateLimited) {
  system_.on_link(0, true, 25'000, true, 0);
  const SlowFrame request = golden::marker_request_frame();
  for (int i = 0; i < 50; ++i)
    system_.on_frame(0, ByteSpan(request), 1000 + i);
  EXPECT_EQ(system_.counters(0).marker_response_tx, kMaxMarkerResponsesPerSecond);
  EXPECT_EQ(system_.counters(0).marker_response_suppressed, 50 - kMaxMarkerResponsesPerSecond);
  system_.on_frame(0, ByteSpan(request), 2 * kNsPerSecond);
  EXPECT_EQ(system_.counters(0).marker_response_tx, kMaxMarkerResponsesPerSecond + 1);
}

TEST_F(SystemTest, BadFramesAreCountedByReason) {
  system_.on_link(0, true, 25'000, true, 0);
  SlowFrame frame = golden::lacpdu_frame();
  frame[17] = 19;
  system_.on_frame(0, ByteSpan(frame), 1);
  const std::uint8_t runt[10] = {};
  system_.on_frame(0, ByteSpan(runt), 2);
  EXPECT_EQ(system_.counters(0).bad(DecodeError::kBadActorTlv), 1u);
  EXPECT_EQ(system_.counters(0).bad(DecodeError::kTooShort), 1u);
  EXPECT_EQ(system_.counters(0).bad_pdu_total, 2u);
  EXPECT_EQ(system_.counters(0).lacpdu_rx, 0u);
}

TEST_F(SystemTest, OwnLacpduLoopedBackIsNotAPartner) {
  system_.on_link(0, true, 25'000, true, 0);
  system_.on_link(1, true, 25'000, true, 0);
  // Port 0's own PDU arrives on port 1 (a cable between two of our ports).
  const std::vector<std::uint8_t> own = sent_.at(0).frame;
  system_.on_frame(1, ByteSpan(own), 10);
  EXPECT_EQ(system_.counters(1).bad(DecodeError::kLoopback), 1u);
  EXPECT_NE(system_.port(1).rx_state, RxState::kCurrent);
}

TEST_F(SystemTest, HostileActorPortZeroIsCountedNotRecorded) {
  system_.on_link(0, true, 25'000, true, 0);
  SlowFrame frame = golden::lacpdu_frame();
  frame[30] = 0;
  frame[31] = 0;
  system_.on_frame(0, ByteSpan(frame), 1);
  EXPECT_EQ(system_.counters(0).bad(DecodeError::kBadActorPort), 1u);
  EXPECT_EQ(system_.port(0).rx_state, RxState::kExpired);
}

TEST_F(SystemTest, FramesOnADownPortAreIgnored) {
  SlowFrame frame = golden::lacpdu_frame();
  frame[25] = 0x77;  // not our own System
  system_.on_frame(0, ByteSpan(frame), 1);
  EXPECT_EQ(system_.counters(0).lacpdu_rx, 1u);
  EXPECT_EQ(system_.counters(0).lacpdu_rx_ignored, 1u);
  EXPECT_EQ(system_.port(0).rx_state, RxState::kPortDisabled);
}

TEST_F(SystemTest, AdminTimeoutChangeIsAdvertisedAtOnce) {
  system_.on_link(0, true, 25'000, true, 0);
  sent_.clear();
  system_.set_timeout(0, LacpTimeout::kLong, kNsPerSecond / 2);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].frame[14 + 18] & state_bit::kTimeout, 0);
  system_.set_activity(0, LacpActivity::kPassive, kNsPerSecond);
  EXPECT_FALSE(has_bit(system_.port(0).actor.state, state_bit::kActivity));
}

TEST_F(SystemTest, KeyChangeForcesReselection) {
  system_.on_link(0, true, 25'000, true, 0);
  system_.set_key(0, std::uint16_t{77}, 1);
  EXPECT_EQ(system_.port(0).actor.key, 77);
  system_.set_key(0, std::nullopt, 2);
  EXPECT_EQ(system_.port(0).actor.key, derive_port_key(25'000, true, 0));
}

std::vector<PortConfig> fallback_ports() {
  auto ports = port_configs(1, 2);
  for (auto& port : ports)
    port.fallback = true;
  return ports;
}

TEST(LacpFallback, OneDefaultedPortCarriesTrafficWhileTheNeighbourIsAlive) {
  LacpSystem system(system_config(1), fallback_ports(), nullptr);
  system.on_link(0, true, 25'000, true, 0);
  system.on_link(1, true, 25'000, true, 0);
  for (std::uint64_t t = 0; t <= 10 * kNsPerSecond; t += kNsPerSecond / 10) {
    system.on_neighbour_frames(0, t);
    system.on_neighbour_frames(1, t);
    system.tick(t);
  }
  EXPECT_EQ(system.port(0).rx_state, RxState::kDefaulted);
  // Two individual ports: active-backup, exactly one carries traffic.
  EXPECT_NE(system.distributing(0), system.distributing(1));
  const std::size_t used = system.distributing(0) ? 0 : 1;
  EXPECT_EQ(system.fallback(used), FallbackState::kEngaged);
  EXPECT_STREQ(system.snapshot().ports[used].fallback, "engaged");
  // The far end goes quiet (dead, or the cable cut at a media converter): out of service.
  const std::uint64_t quiet_from = 10 * kNsPerSecond;
  EXPECT_LE(system.next_deadline_ns(), quiet_from + kFallbackNeighbourWindow);
  system.tick(quiet_from + kFallbackNeighbourWindow);
  EXPECT_FALSE(system.distributing(0));
  EXPECT_FALSE(system.distributing(1));
  EXPECT_EQ(system.fallback(used), FallbackState::kNoNeighbour);
}

TEST(LacpFallback, AnyLacpduBlocksItForTheLongTimeout) {
  LacpSystem system(system_config(1), fallback_ports(), nullptr);
  system.on_link(0, true, 25'000, true, 0);
  SlowFrame malformed = golden::lacpdu_frame();
  malformed[17] = 19;  // bad Actor TLV length: rejected, but a LACP speaker is out there
  system.on_frame(0, ByteSpan(malformed), kNsPerSecond);
  EXPECT_EQ(system.counters(0).bad(DecodeError::kBadActorTlv), 1u);
  std::uint64_t t = kNsPerSecond;
  for (; t < kNsPerSecond + kLongTimeoutTime; t += kNsPerSecond) {
    system.on_neighbour_frames(0, t);
    system.tick(t);
    ASSERT_FALSE(system.distributing(0)) << "at " << t;
  }
  EXPECT_EQ(system.fallback(0), FallbackState::kBlockedByLacpdu);
  system.on_neighbour_frames(0, t);
  system.tick(t);
  EXPECT_TRUE(system.distributing(0));
  EXPECT_EQ(system.fallback(0), FallbackState::kEngaged);
  // A LACPDU takes it out again at once.
  system.on_frame(0, ByteSpan(malformed), t + 1);
  EXPECT_FALSE(system.distributing(0));
}

TEST_F(SystemTest, NoFallbackByDefault) {
  system_.on_link(0, true, 25'000, true, 0);
  for (std::uint64_t t = 0; t <= 10 * kNsPerSecond; t += kNsPerSecond / 10) {
    system_.on_neighbour_frames(0, t);
    system_.tick(t);
  }
  EXPECT_EQ(system_.port(0).rx_state, RxState::kDefaulted);
  EXPECT_FALSE(system_.distributing(0));
  EXPECT_EQ(system_.fallback(0), FallbackState::kOff);
}

TEST_F(SystemTest, RefusedLacpduIsRetriedNotLost) {
  refuse_ = 1;
  system_.on_link(0, true, 25'000, true, 0);  // NTT at link up
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(system_.counters(0).lacpdu_tx_failed, 1u);
  EXPECT_EQ(system_.next_deadline_ns(), kTxRetryTime);
  system_.tick(kTxRetryTime);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(system_.counters(0).lacpdu_tx, 1u);
}

TEST_F(SystemTest, GoodbyeSaysOutOfSyncAndForgetsThePartner) {
  system_.on_link(0, true, 25'000, true, 0);
  EXPECT_FALSE(system_.goodbye_frame(0).has_value());  // never in sync: nothing to retract
  // Force the in-service picture a converged port has.
  Port& port = const_cast<Port&>(system_.port(0));
  port.partner = golden::lacpdu().actor;
  port.actor.state |=
      state_bit::kSynchronization | state_bit::kCollecting | state_bit::kDistributing;
  const auto frame = system_.goodbye_frame(0);
  ASSERT_TRUE(frame.has_value());
  const DecodedFrame decoded = decode_slow_frame(ByteSpan(*frame));
  ASSERT_EQ(decoded.kind, FrameKind::kLacpdu);
  EXPECT_FALSE(has_bit(decoded.lacpdu.actor.state, state_bit::kSynchronization));
  EXPECT_FALSE(has_bit(decoded.lacpdu.actor.state, state_bit::kCollecting));
  EXPECT_FALSE(has_bit(decoded.lacpdu.actor.state, state_bit::kDistributing));
  EXPECT_TRUE(has_bit(decoded.lacpdu.actor.state, state_bit::kAggregation));
  EXPECT_TRUE(has_bit(decoded.lacpdu.actor.state, state_bit::kDefaulted));
  EXPECT_EQ(decoded.lacpdu.actor.port_number, 1);
  EXPECT_EQ(decoded.lacpdu.actor.key, port.actor.key);  // same LAG: no reselection
  // A null partner: DPDK's net_bonding declares us in sync whenever the partner fields echo it.
  EXPECT_EQ(decoded.lacpdu.partner.system, MacAddress{});
  EXPECT_EQ(decoded.lacpdu.partner.port_number, 0);
  system_.goodbye_sent(0, 5);
  EXPECT_EQ(system_.counters(0).goodbye_tx, 1u);
}

// Withdrawal (set_withdrawn): both ports aggregated with a scripted partner, then port 1 asks the
// partner to stop sending to it while LACP keeps running.
constexpr MacAddress kPartnerSystem{0x02, 0, 0, 0, 0, 0x22};
constexpr std::uint8_t kInServiceBits =
    state_bit::kSynchronization | state_bit::kCollecting | state_bit::kDistributing;
constexpr std::uint8_t kPartnerAttached = state_bit::kActivity | state_bit::kTimeout |
                                          state_bit::kAggregation | state_bit::kSynchronization;
constexpr std::uint8_t kPartnerInService = kPartnerAttached | kInServiceBits;
constexpr std::uint64_t kMs = 1'000'000;

class WithdrawalTest : public SystemTest {
 protected:
  // A LACPDU from the partner's port `port + 1` that echoes our port's actor information.
  Lacpdu partner_pdu(std::size_t port, std::uint8_t their_state,
                     const MacAddress& their_system = kPartnerSystem) const {
    Lacpdu pdu;
    pdu.actor =
        PortInfo{0x8000, their_system, 20, 0x80, static_cast<std::uint16_t>(port + 1), their_state};
    pdu.partner = system_.port(port).actor;
    return pdu;
  }
  void hear(std::size_t port, const Lacpdu& pdu, std::uint64_t now_ns) {
    const MacAddress source{0x02, 0, 0, 0x22, 1, static_cast<std::uint8_t>(port + 1)};
    const SlowFrame frame = encode_lacpdu(source, pdu);
    system_.on_frame(port, ByteSpan(frame), now_ns);
  }
  void hear(std::size_t port, std::uint8_t their_state, std::uint64_t now_ns,
            const MacAddress& their_system = kPartnerSystem) {
    hear(port, partner_pdu(port, their_state, their_system), now_ns);
  }
  // Both ports up at 0, heard from the partner, aggregated once the aggregate wait is over.
  void converge() {
    for (std::size_t port = 0; port < 2; ++port) {
      system_.on_link(port, true, 25'000, true, 0);
      hear(port, kPartnerInService, 0);
    }
    system_.tick(kAggregateWaitTime);
    ASSERT_TRUE(system_.distributing(0) && system_.collecting(0));
    ASSERT_TRUE(system_.distributing(1) && system_.collecting(1));
    sent_.clear();
  }
  int withdrawal_events() const {
    int count = 0;
    for (const Event& event : system_.event_log().events())
      count += event.machine == Machine::kWithdrawal;
    return count;
  }
};

TEST_F(WithdrawalTest, WithdrawnPortIsStandbyAndSaysSoAtOnce) {
  converge();
  const int aggregator = system_.port(1).aggregator;
  const int active = system_.active_aggregator();
  const std::uint64_t generation = system_.generation();
  const std::uint64_t at = kAggregateWaitTime + 100 * kMs;
  system_.set_withdrawn(1, true, at);
  EXPECT_TRUE(system_.withdrawn(1));
  EXPECT_FALSE(system_.withdrawn(0));
  EXPECT_EQ(system_.withdrawn_since_ns(1), at);
  EXPECT_FALSE(system_.withdrawn_since_ns(0).has_value());
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  // STANDBY in the same aggregator (6.4.14), which stays the active one; DETACHED then WAITING.
  const Port& port = system_.port(1);
  EXPECT_EQ(port.selected, Selected::kStandby);
  EXPECT_EQ(port.aggregator, aggregator);
  EXPECT_EQ(system_.active_aggregator(), active);
  EXPECT_EQ(port.mux_state, MuxState::kWaiting);
  EXPECT_FALSE(system_.collecting(1) || system_.distributing(1));
  EXPECT_NE(system_.generation(), generation);
  EXPECT_TRUE(system_.distributing(0) && system_.collecting(0));
  // LACP keeps running on it: the partner stays CURRENT, the Periodic machine too.
  EXPECT_EQ(port.rx_state, RxState::kCurrent);
  EXPECT_EQ(port.periodic_state, PeriodicState::kFastPeriodic);
  // The LACPDU went out inside the call: out of sync, and the partner still echoed (not the
  // null partner of goodbye_frame).
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].port, 1u);
  const DecodedFrame decoded = decode_slow_frame(ByteSpan(sent_[0].frame));
  ASSERT_EQ(decoded.kind, FrameKind::kLacpdu);
  EXPECT_EQ(decoded.lacpdu.actor.state & kInServiceBits, 0);
  EXPECT_FALSE(has_bit(decoded.lacpdu.actor.state, state_bit::kDefaulted));
  EXPECT_EQ(decoded.lacpdu.partner.system, kPartnerSystem);
  EXPECT_EQ(decoded.lacpdu.partner.port_number, 2);
  EXPECT_EQ(decoded.lacpdu.partner.key, 20);
  // The snapshot and the event log say so.
  const SystemSnapshot snap = system_.snapshot();
  EXPECT_TRUE(snap.ports[1].withdrawn);
  EXPECT_FALSE(snap.ports[0].withdrawn);
  EXPECT_FALSE(snap.ports[1].partner_released_ns.has_value());
  EXPECT_NE(format_snapshot(snap).find("withdrawn"), std::string::npos);
  bool logged = false;
  bool standby = false;
  for (const Event& event : system_.event_log().events()) {
    if (event.port_number != 2 || event.time_ns != at) continue;
    logged =
        logged || (event.machine == Machine::kWithdrawal &&
                   std::string(event.from) == "IN_SERVICE" && std::string(event.to) == "WITHDRAWN");
    standby =
        standby || (event.machine == Machine::kSelection && std::string(event.from) == "SELECTED" &&
                    std::string(event.to) == "STANDBY");
  }
  EXPECT_TRUE(logged);
  EXPECT_TRUE(standby);
}

TEST_F(WithdrawalTest, SetWithdrawnTwiceIsANoOp) {
  converge();
  const std::uint64_t t0 = kAggregateWaitTime;
  system_.set_withdrawn(1, true, t0 + 100 * kMs);
  hear(1, kPartnerAttached, t0 + 200 * kMs);
  ASSERT_EQ(system_.partner_released_ns(1), t0 + 200 * kMs);
  sent_.clear();
  const std::uint64_t events = system_.event_log().total();
  system_.set_withdrawn(1, true, t0 + 300 * kMs);
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(system_.event_log().total(), events);
  EXPECT_EQ(system_.withdrawn_since_ns(1), t0 + 100 * kMs);   // not a new withdrawal
  EXPECT_EQ(system_.partner_released_ns(1), t0 + 200 * kMs);  // not reset
  system_.set_withdrawn(1, false, t0 + 400 * kMs);
  EXPECT_FALSE(system_.withdrawn(1));
  EXPECT_EQ(system_.port(1).selected, Selected::kSelected);
  sent_.clear();
  const std::uint64_t events_after_return = system_.event_log().total();
  system_.set_withdrawn(1, false, t0 + 500 * kMs);
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(system_.event_log().total(), events_after_return);
  EXPECT_EQ(withdrawal_events(), 3);  // withdrawn, partner released, in service
}

TEST_F(WithdrawalTest, PartnerReleasedOnlyOnceItsActorStopsDistributing) {
  converge();
  const std::uint64_t t0 = kAggregateWaitTime;
  system_.set_withdrawn(1, true, t0 + 100 * kMs);
  // Sent before the partner heard us: it still distributes to us.
  hear(1, kPartnerInService, t0 + 200 * kMs);
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  // Its Distributing bit clear: released, at the first such LACPDU.
  hear(1, kPartnerAttached | state_bit::kCollecting, t0 + 300 * kMs);
  EXPECT_EQ(system_.partner_released_ns(1), t0 + 300 * kMs);
  EXPECT_EQ(system_.snapshot().ports[1].partner_released_ns, t0 + 300 * kMs);
  hear(1, kPartnerAttached, t0 + 400 * kMs);
  EXPECT_EQ(system_.partner_released_ns(1), t0 + 300 * kMs);
  // Port 0's partner is untouched by any of it.
  EXPECT_FALSE(system_.partner_released_ns(0).has_value());
  // Returned: nothing to report.
  system_.set_withdrawn(1, false, t0 + 500 * kMs);
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  // A new withdrawal starts over; this time the partner says it is out of sync (its
  // Synchronization bit clear, even with Distributing still set).
  hear(1, kPartnerInService, t0 + 600 * kMs);
  system_.set_withdrawn(1, true, t0 + 700 * kMs);
  EXPECT_EQ(system_.withdrawn_since_ns(1), t0 + 700 * kMs);
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  hear(1, kPartnerInService, t0 + 800 * kMs);
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  hear(1, kPartnerInService & ~state_bit::kSynchronization, t0 + 900 * kMs);
  EXPECT_EQ(system_.partner_released_ns(1), t0 + 900 * kMs);
}

TEST_F(WithdrawalTest, ReleaseHeardBeforeTheWithdrawalDoesNotCount) {
  converge();
  const std::uint64_t t0 = kAggregateWaitTime;
  hear(1, kPartnerAttached, t0 + 100 * kMs);  // partner not distributing, we not withdrawn
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  system_.set_withdrawn(1, true, t0 + 200 * kMs);
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  hear(1, kPartnerAttached, t0 + 300 * kMs);
  EXPECT_EQ(system_.partner_released_ns(1), t0 + 300 * kMs);
}

TEST_F(WithdrawalTest, ReleaseIsReadFromTheActorStateAsReceived) {
  converge();
  const std::uint64_t t0 = kAggregateWaitTime;
  system_.set_withdrawn(1, true, t0 + 100 * kMs);
  // The partner still says in sync and distributing, but its echo of us is stale: our recomputed
  // view of its Synchronization is clear (recordPDU, 6.4.9), yet it may still send to us.
  Lacpdu stale = partner_pdu(1, kPartnerInService);
  stale.partner.port_priority ^= 1;
  hear(1, stale, t0 + 200 * kMs);
  ASSERT_FALSE(has_bit(system_.port(1).partner.state, state_bit::kSynchronization));
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
  // A LACPDU the Receive machine does not take (link down) says nothing either.
  system_.on_link(1, false, 25'000, true, t0 + 300 * kMs);
  hear(1, kPartnerAttached, t0 + 400 * kMs);
  EXPECT_FALSE(system_.partner_released_ns(1).has_value());
}

TEST_F(WithdrawalTest, SurvivesALinkFlapButANewPartnerIsSelectedAgain) {
  converge();
  const std::uint64_t t0 = kAggregateWaitTime;
  const int aggregator = system_.port(1).aggregator;
  system_.set_withdrawn(1, true, t0 + 100 * kMs);
  system_.on_link(1, false, 25'000, true, t0 + 200 * kMs);
  EXPECT_TRUE(system_.withdrawn(1));
  system_.on_link(1, true, 25'000, true, t0 + 300 * kMs);
  hear(1, kPartnerAttached, t0 + 400 * kMs);
  EXPECT_TRUE(system_.withdrawn(1));
  EXPECT_EQ(system_.port(1).selected, Selected::kStandby);
  EXPECT_EQ(system_.port(1).aggregator, aggregator);
  EXPECT_FALSE(system_.collecting(1) || system_.distributing(1));
  // The cable now leads to another system: a new LAG ID, so UNSELECTED and a new aggregator
  // (update_Selected, 6.4.9), and still STANDBY once selected, since still withdrawn.
  const MacAddress other{0x02, 0, 0, 0, 0, 0x33};
  const std::uint64_t moved_at = t0 + 500 * kMs;
  hear(1, kPartnerAttached, moved_at, other);
  EXPECT_TRUE(system_.withdrawn(1));
  EXPECT_EQ(system_.port(1).partner.system, other);
  EXPECT_EQ(system_.port(1).selected, Selected::kStandby);
  EXPECT_NE(system_.port(1).aggregator, system_.port(0).aggregator);
  bool selected_again = false;
  for (const Event& event : system_.event_log().events()) {
    selected_again = selected_again || (event.time_ns == moved_at && event.port_number == 2 &&
                                        event.machine == Machine::kSelection &&
                                        std::string(event.from) == "UNSELECTED" &&
                                        std::string(event.to) == "STANDBY");
  }
  EXPECT_TRUE(selected_again);
  EXPECT_TRUE(system_.distributing(0));
}

TEST_F(SystemTest, SnapshotAndEventLog) {
  system_.on_link(0, true, 100'000, true, 0);
  system_.tick(kShortTimeoutTime + 1);
  const SystemSnapshot snap = system_.snapshot();
  ASSERT_EQ(snap.ports.size(), 2u);
  EXPECT_EQ(snap.system_mac, system_config(1).system_mac);
  EXPECT_STREQ(snap.ports[0].receive_state, "DEFAULTED");
  EXPECT_STREQ(snap.ports[1].receive_state, "PORT_DISABLED");
  EXPECT_TRUE(snap.ports[0].actor_state.activity);
  EXPECT_TRUE(snap.ports[0].actor_state.defaulted);
  EXPECT_EQ(snap.ports[0].speed_mbps, 100'000u);
  const std::string text = format_snapshot(snap);
  EXPECT_NE(text.find("DEFAULTED"), std::string::npos);
  bool saw_defaulted = false;
  for (const Event& event : system_.event_log().events()) {
    if (event.port_number == 1 && std::string(event.to) == "DEFAULTED") {
      saw_defaulted = true;
      EXPECT_EQ(event.time_ns, kShortTimeoutTime + 1);
    }
  }
  EXPECT_TRUE(saw_defaulted);
}

TEST(LacpEventLog, RingKeepsNewest) {
  EventLog log(3);
  for (std::uint64_t i = 0; i < 5; ++i)
    log.record(Event{i, 1, Machine::kMux, "A", "B"});
  const auto events = log.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events.front().time_ns, 2u);
  EXPECT_EQ(events.back().time_ns, 4u);
  EXPECT_EQ(log.dropped(), 2u);
  EXPECT_NE(to_string(events.back()).find("mux A -> B"), std::string::npos);
}

// The Periodic machine passes through PERIODIC_TX on every timer expiry; those passes are
// counted, and a minute of them leaves the transitions that matter in the ring.
TEST(LacpEventLog, PeriodicTicksAreCountedNotKept) {
  EventLog log(8);
  log.record(Event{0, 1, Machine::kPeriodic, "NO_PERIODIC", "FAST_PERIODIC"});
  log.record(Event{0, 1, Machine::kMux, "DETACHED", "WAITING"});
  for (std::uint64_t s = 1; s <= 60; ++s) {
    log.record(Event{s * 1'000'000'000, 1, Machine::kPeriodic, "FAST_PERIODIC", "PERIODIC_TX"});
    log.record(Event{s * 1'000'000'000, 1, Machine::kPeriodic, "PERIODIC_TX", "FAST_PERIODIC"});
    log.record(Event{s * 1'000'000'000, 2, Machine::kPeriodic, "SLOW_PERIODIC", "PERIODIC_TX"});
    log.record(Event{s * 1'000'000'000, 2, Machine::kPeriodic, "PERIODIC_TX", "SLOW_PERIODIC"});
  }
  // A pass that changes the rate is a transition (its entry into PERIODIC_TX still a tick).
  log.record(Event{61, 1, Machine::kPeriodic, "FAST_PERIODIC", "PERIODIC_TX"});
  log.record(Event{61, 1, Machine::kPeriodic, "PERIODIC_TX", "SLOW_PERIODIC"});
  const auto events = log.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_STREQ(events[0].to, "FAST_PERIODIC");
  EXPECT_EQ(events[1].machine, Machine::kMux);
  EXPECT_STREQ(events[2].from, "PERIODIC_TX");
  EXPECT_STREQ(events[2].to, "SLOW_PERIODIC");
  EXPECT_EQ(log.periodic_ticks(), 121u);
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(LacpEventLog, AMinuteOfTicksKeepsTheStartUpTransitions) {
  SystemConfig config = system_config(1);
  config.event_log_capacity = 64;  // a minute of fast ticks on 2 ports is 240 entries
  LacpSystem system(config, port_configs(1, 2), [](std::size_t, ByteSpan) { return true; });
  system.on_link(0, true, 25'000, true, 0);
  system.on_link(1, true, 25'000, true, 0);
  const std::vector<Event> start = system.event_log().events();
  ASSERT_FALSE(start.empty());
  for (std::uint64_t t = 0; t <= 60'000'000'000; t += 100'000'000)
    system.tick(t);
  const std::vector<Event> after = system.event_log().events();
  EXPECT_GE(system.event_log().periodic_ticks(), 2u * 60);  // fast: no partner says slow
  EXPECT_EQ(system.event_log().dropped(), 0u);
  ASSERT_GE(after.size(), start.size());
  for (std::size_t e = 0; e < start.size(); ++e) {
    EXPECT_EQ(after[e].machine, start[e].machine);
    EXPECT_STREQ(after[e].to, start[e].to);
  }
}

}  // namespace
}  // namespace braid::lacp
