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
