// The per-member agent (IEEE 802.1AB-2016 9.2): its transmit timers, credit and shutdown frame,
// and the neighbour table's insertion, change, ageing and TTL-0 removal, on an injected clock.
#include "lldp/agent.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace braid::lldp {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kS = kNsPerSecond;
constexpr std::uint64_t kMs = kS / 1000;
constexpr MacAddress kOurMac{0x02, 0x00, 0x00, 0x00, 0x0a, 0x01};

Lldpdu ours() {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_mac({0x02, 0x00, 0x00, 0x00, 0x0a, 0x00});
  lldpdu.port_id = port_interface_name("p0");
  lldpdu.system_name = "braid-host";
  return lldpdu;
}

Lldpdu switch_port(const std::string& port, std::uint16_t ttl_s = 120) {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_mac({0x0c, 0x00, 0x00, 0x00, 0x00, 0x01});
  lldpdu.port_id = port_interface_name(port);
  lldpdu.ttl_s = ttl_s;
  lldpdu.system_name = "tor1";
  return lldpdu;
}

Bytes frame_of(const Lldpdu& lldpdu) {
  return build_frame({0x0c, 0, 0, 0, 0, 0x02}, lldpdu);
}

// Runs the agent as the protocol loop would, from `from_ns` up to `to_ns`, and returns when each
// frame went out.
std::vector<std::uint64_t> run(Agent& agent, std::uint64_t from_ns, std::uint64_t to_ns,
                               std::vector<Lldpdu>* sent = nullptr) {
  std::vector<std::uint64_t> times;
  std::uint64_t now = from_ns;
  for (int steps = 0; steps < 10'000; ++steps) {
    while (auto frame = agent.poll(now)) {
      times.push_back(now);
      if (sent != nullptr) {
        const ParsedFrame parsed = parse_frame(*frame);
        EXPECT_EQ(parsed.reason, RejectReason::kNone);
        sent->push_back(parsed.lldpdu);
      }
    }
    const std::uint64_t next = agent.next_deadline_ns();
    EXPECT_GT(next, now);
    if (next > to_ns) break;
    now = next;
  }
  return times;
}

TEST(LldpAgent, FastStartThenEveryTxInterval) {
  Agent agent({.source_mac = kOurMac}, ours());
  EXPECT_EQ(agent.ttl_s(), 121);  // 30 s x 4 + 1
  EXPECT_FALSE(agent.poll(0));    // stopped
  EXPECT_EQ(agent.next_deadline_ns(), Agent::kNever);
  agent.start(5 * kS);
  std::vector<Lldpdu> sent;
  const auto times = run(agent, 5 * kS, 100 * kS, &sent);
  // txFastInit = 4 frames 1 s apart, then msgTxInterval.
  EXPECT_EQ(times, (std::vector<std::uint64_t>{5 * kS, 6 * kS, 7 * kS, 8 * kS, 38 * kS, 68 * kS,
                                               98 * kS}));
  ASSERT_FALSE(sent.empty());
  Lldpdu expected = ours();
  expected.ttl_s = 121;
  EXPECT_EQ(sent.front(), expected);
  EXPECT_EQ(agent.counters().frames_out, 7u);
  EXPECT_EQ(agent.counters().fast_starts, 1u);
}

TEST(LldpAgent, ANewNeighbourStartsFastTransmission) {
  Agent agent({.source_mac = kOurMac}, ours());
  agent.start(0);
  run(agent, 0, 10 * kS);  // settled: next frame at 33 s
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp1")), 12 * kS), RxEvent::kNew);
  EXPECT_TRUE(agent.take_changed());
  EXPECT_FALSE(agent.take_changed());
  EXPECT_EQ(agent.next_deadline_ns(), 12 * kS);
  const auto times = run(agent, 12 * kS, 50 * kS);
  EXPECT_EQ(times, (std::vector<std::uint64_t>{12 * kS, 13 * kS, 14 * kS, 15 * kS, 45 * kS}));
  // The same neighbour again is no news.
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp1")), 50 * kS), RxEvent::kRefreshed);
  EXPECT_FALSE(agent.take_changed());
  EXPECT_EQ(agent.counters().fast_starts, 2u);
}

TEST(LldpAgent, CreditLimitsBursts) {
  Agent agent({.source_mac = kOurMac, .tx_credit_max = 2}, ours());
  agent.start(0);
  EXPECT_TRUE(agent.poll(0));  // one credit left
  Lldpdu local = ours();
  int sent = 0;
  for (int i = 0; i < 5; ++i) {
    local.system_description = "change " + std::to_string(i);
    EXPECT_TRUE(agent.set_local(local, 100 * kMs));
    if (agent.poll(100 * kMs)) ++sent;
  }
  EXPECT_EQ(sent, 1);
  EXPECT_FALSE(agent.set_local(local, 100 * kMs));  // no change, nothing due
  EXPECT_EQ(agent.counters().credit_waits, 1u);
  // The next credit comes one second after start; the frame waiting for it goes then.
  EXPECT_EQ(agent.next_deadline_ns(), 1 * kS);
  EXPECT_FALSE(agent.poll(999 * kMs));
  const auto frame = agent.poll(1 * kS);
  ASSERT_TRUE(frame);
  EXPECT_EQ(parse_frame(*frame).lldpdu.system_description, "change 4");
  EXPECT_EQ(agent.counters().frames_out, 3u);
}

TEST(LldpAgent, StopSendsAShutdownFrameAndRestartWaitsReinitDelay) {
  Agent agent({.source_mac = kOurMac}, ours());
  agent.start(0);
  run(agent, 0, 10 * kS);
  agent.on_frame(frame_of(switch_port("swp1")), 10 * kS);
  agent.take_changed();
  agent.stop(20 * kS);
  EXPECT_TRUE(agent.neighbours().empty());
  EXPECT_TRUE(agent.take_changed());
  EXPECT_EQ(agent.next_deadline_ns(), 20 * kS);
  const auto frame = agent.poll(20 * kS);
  ASSERT_TRUE(frame);
  const ParsedFrame parsed = parse_frame(*frame);
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  Lldpdu shutdown;
  shutdown.chassis_id = ours().chassis_id;
  shutdown.port_id = ours().port_id;
  shutdown.ttl_s = 0;
  EXPECT_EQ(parsed.lldpdu, shutdown);  // the mandatory TLVs only
  EXPECT_EQ(agent.counters().shutdowns_out, 1u);
  EXPECT_TRUE(run(agent, 20 * kS, 100 * kS).empty());
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp1")), 21 * kS), RxEvent::kIgnored);
  // Started again 1 s later: the first frame waits for reinitDelay (2 s) after the stop.
  agent.start(21 * kS);
  EXPECT_EQ(agent.next_deadline_ns(), 22 * kS);
  EXPECT_FALSE(agent.poll(21 * kS + 999 * kMs));
  EXPECT_TRUE(agent.poll(22 * kS));
  // A stop before the first frame has nothing to retract.
  Agent quiet({.source_mac = kOurMac}, ours());
  quiet.start(0);
  quiet.stop(0);
  EXPECT_FALSE(quiet.poll(0));
}

TEST(LldpAgent, NeighboursAgeOutAfterTheirTtl) {
  Agent agent({.source_mac = kOurMac}, ours());
  agent.start(0);
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp1", 10)), 1 * kS), RxEvent::kNew);
  ASSERT_EQ(agent.neighbours().size(), 1u);
  EXPECT_EQ(agent.neighbours()[0].info.system_name, "tor1");
  EXPECT_EQ(agent.neighbours()[0].expires_ns, 11 * kS);
  agent.take_changed();
  run(agent, 1 * kS, 10 * kS);
  agent.poll(11 * kS - 1);
  EXPECT_EQ(agent.neighbours().size(), 1u);
  // The table's own deadline wakes the loop at expiry.
  EXPECT_EQ(agent.next_deadline_ns(), 11 * kS);
  agent.poll(11 * kS);
  EXPECT_TRUE(agent.neighbours().empty());
  EXPECT_TRUE(agent.take_changed());
  EXPECT_EQ(agent.counters().ageouts, 1u);
  EXPECT_EQ(agent.counters().deletes, 1u);
}

TEST(LldpAgent, TtlZeroRemovesAtOnce) {
  Agent agent({.source_mac = kOurMac}, ours());
  agent.start(0);
  agent.on_frame(frame_of(switch_port("swp1")), 1 * kS);
  agent.on_frame(frame_of(switch_port("swp2")), 1 * kS);
  agent.take_changed();
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp1", 0)), 2 * kS), RxEvent::kShutdown);
  ASSERT_EQ(agent.neighbours().size(), 1u);
  EXPECT_EQ(agent.neighbours()[0].info.port_id, port_interface_name("swp2"));
  EXPECT_TRUE(agent.take_changed());
  // A shutdown from a neighbour we never knew changes nothing.
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp9", 0)), 2 * kS), RxEvent::kShutdown);
  EXPECT_FALSE(agent.take_changed());
  EXPECT_EQ(agent.counters().shutdowns_in, 2u);
  EXPECT_EQ(agent.counters().deletes, 1u);
  EXPECT_EQ(agent.counters().ageouts, 0u);
}

TEST(LldpAgent, ChangedInformationAndAFullTable) {
  Agent agent({.source_mac = kOurMac, .max_neighbours = 2}, ours());
  agent.start(0);
  Lldpdu swp1 = switch_port("swp1");
  agent.on_frame(frame_of(swp1), 1 * kS);
  agent.take_changed();
  swp1.org_specific.push_back(encode_link_aggregation({true, true, 7}));
  EXPECT_EQ(agent.on_frame(frame_of(swp1), 2 * kS), RxEvent::kChanged);
  EXPECT_TRUE(agent.take_changed());
  ASSERT_EQ(agent.neighbours().size(), 1u);
  EXPECT_EQ(agent.neighbours()[0].changes, 1u);
  EXPECT_EQ(agent.neighbours()[0].first_seen_ns, 1 * kS);
  EXPECT_EQ(agent.neighbours()[0].last_update_ns, 2 * kS);
  ASSERT_TRUE(agent.neighbours()[0].aggregation);
  EXPECT_EQ(agent.neighbours()[0].aggregation->aggregated_port_id, 7u);
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp2")), 3 * kS), RxEvent::kNew);
  EXPECT_EQ(agent.on_frame(frame_of(switch_port("swp3")), 3 * kS), RxEvent::kTableFull);
  EXPECT_EQ(agent.neighbours().size(), 2u);
  EXPECT_EQ(agent.counters().drops, 1u);
  EXPECT_EQ(agent.counters().inserts, 2u);
}

TEST(LldpAgent, CountsWhatItDiscards) {
  Agent agent({.source_mac = kOurMac}, ours());
  agent.start(0);
  Bytes bad = frame_of(switch_port("swp1"));
  bad[12] = 0x08;  // ethertype 0x08cc
  EXPECT_EQ(agent.on_frame(bad, 1 * kS), RxEvent::kDiscarded);
  EXPECT_EQ(agent.on_frame(Bytes(10, 0), 1 * kS), RxEvent::kDiscarded);
  // A reserved TLV and no End: accepted, both counted.
  Bytes odd = frame_of(switch_port("swp1"));
  const ParsedFrame parsed = parse_frame(odd);
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  Bytes unusual(odd.begin(), odd.begin() + 14);
  const Bytes mandatory = {0x02, 0x02, 0x07, 'c',  0x04, 0x02, 0x07,
                           'p',  0x06, 0x02, 0x00, 0x78, 0x12, 0x00};
  unusual.insert(unusual.end(), mandatory.begin(), mandatory.end());
  EXPECT_EQ(agent.on_frame(unusual, 1 * kS), RxEvent::kNew);
  const AgentCounters& counters = agent.counters();
  EXPECT_EQ(counters.discarded_total, 2u);
  EXPECT_EQ(counters.discarded_for(RejectReason::kBadEthertype), 1u);
  EXPECT_EQ(counters.discarded_for(RejectReason::kFrameTooShort), 1u);
  EXPECT_EQ(counters.frames_in, 1u);
  EXPECT_EQ(counters.tlvs_unrecognised, 1u);
  EXPECT_EQ(counters.frames_without_end, 1u);
}

TEST(LldpAgent, ConfigChecks) {
  EXPECT_EQ(check_agent_config({}), "");
  EXPECT_EQ(check_agent_config({.tx_interval_s = 0}), "tx_interval_s must be 1-3600");
  EXPECT_EQ(check_agent_config({.tx_hold = 101}), "tx_hold must be 1-100");
  EXPECT_EQ(check_agent_config({.tx_fast_init = 9}), "tx_fast_init must be 1-8");
  EXPECT_EQ(check_agent_config({.tx_credit_max = 0}), "tx_credit_max must be 1-10");
  EXPECT_EQ(check_agent_config({.max_neighbours = 0}), "max_neighbours must be at least 1");
  // A long interval caps the TTL at 65535.
  Agent agent({.tx_interval_s = 3600, .tx_hold = 100}, ours());
  EXPECT_EQ(agent.ttl_s(), 65535);
}

}  // namespace
}  // namespace braid::lldp
