// LacpSystem as the bond sees it: configuration checks, frame handling, counters, outputs.
#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>
#include <vector>

#include "golden_frames.hpp"
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
          sent_.push_back({port, {frame.begin(), frame.end()}});
        }) {}

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

TEST_F(SystemTest, FallbackMakesOneDefaultedPortUsable) {
  system_.on_link(0, true, 25'000, true, 0);
  system_.on_link(1, true, 25'000, true, 0);
  for (std::uint64_t t = 0; t <= 10 * kNsPerSecond; t += kNsPerSecond / 10)
    system_.tick(t);
  EXPECT_EQ(system_.port(0).rx_state, RxState::kDefaulted);
  // Two individual ports: active-backup, exactly one carries traffic.
  EXPECT_NE(system_.distributing(0), system_.distributing(1));
  EXPECT_GT(system_.generation(), 0u);
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

}  // namespace
}  // namespace braid::lacp
