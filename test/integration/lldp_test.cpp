// LLDP on the wire (issue 15), on real vdevs with the protocol loop's own code (Bond::poll):
// two bonds on virtual cables hear each other (chassis: the far bond's MAC, port: the far
// member's name, system name as configured); a member cabled to a third system raises the
// different_chassis finding, and one whose cable leads nowhere turns silent; a neighbour that
// goes quiet is forgotten when its TTL runs out; hostile LLDPDUs are counted by reason (and a
// flood policed), the packet accounting holds, nothing crashes.
#include <gtest/gtest.h>
#include <rte_ethdev.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bond_rig.hpp"
#include "config/config_loader.hpp"
#include "lldp/lldpdu.hpp"
#include "slow_frames.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

// Bonds on virtual cables in one engine; each bond cross-connected to a net_null port. The
// engine leaves cable ends open (the demo reuses them): closed here.
class CabledBonds {
 public:
  explicit CabledBonds(const std::string& yaml)
      : engine_(std::make_unique<engine::Engine>(config::parse_config(yaml, "lldp-cables"))) {}
  ~CabledBonds() {
    std::vector<std::uint16_t> cables;
    for (std::size_t p = 0; p < engine_->port_count(); ++p) {
      if (engine_->port(p).name().find("null") == std::string::npos)
        cables.push_back(engine_->port(p).id());
    }
    engine_.reset();
    for (std::uint16_t port : cables)
      rte_eth_dev_close(port);
  }
  CabledBonds(const CabledBonds&) = delete;
  CabledBonds& operator=(const CabledBonds&) = delete;

  engine::Engine& engine() { return *engine_; }
  const bond::BondLldp& lldp(std::size_t bond) { return *engine_->bond(bond).lldp(); }

 private:
  std::unique_ptr<engine::Engine> engine_;
};

std::string null_port(const std::string& name) {
  return "  - {name: " + name + ", device: \"" + unique_name("net_null_ll") + ",no-rx=1\"}\n";
}

std::string cable_port(const std::string& name, const std::string& cable, char end) {
  return "  - {name: " + name + ", device: \"cable:" + cable + "/" + end + "\"}\n";
}

// The neighbour member m of `lldp` hears, if exactly one.
const lldp::Neighbour* only_neighbour(const bond::BondLldp& lldp, std::size_t m) {
  const std::vector<lldp::Neighbour>& neighbours = lldp.agent(m).neighbours();
  return neighbours.size() == 1 ? &neighbours.front() : nullptr;
}

// The first neighbour member m hears (the caller saw it there).
const lldp::Neighbour& neighbour_of(const bond::BondLldp& lldp, std::size_t m) {
  return lldp.agent(m).neighbours().at(0);
}

bool has_finding(const bond::BondLldp& lldp, lldp::FindingKind kind,
                 const std::vector<std::string>& members) {
  return std::any_of(lldp.findings().begin(), lldp.findings().end(), [&](const lldp::Finding& f) {
    return f.kind == kind && f.members == members;
  });
}

bool has_event(const bond::Bond& bond, const std::string& text) {
  return std::any_of(bond.events().begin(), bond.events().end(), [&](const bond::BondEvent& e) {
    return e.text.find(text) != std::string::npos;
  });
}

TEST(Lldp, TwoBondsOnCablesHearEachOthersChassisPortAndName) {
  const std::string c0 = unique_name("ll"), c1 = unique_name("ll");
  CabledBonds world("ports:\n" + null_port("null_l") + null_port("null_r") +
                    cable_port("a0", c0, 'a') + cable_port("a1", c1, 'a') +
                    cable_port("b0", c0, 'b') + cable_port("b1", c1, 'b') +
                    "bonds:\n"
                    "  - {name: left, members: [a0, a1], mode: lacp, mac: \"02:11:00:00:00:01\","
                    " lldp: {system_name: server-7}}\n"
                    "  - {name: right, members: [b0, b1], mode: lacp, mac: \"02:22:00:00:00:01\","
                    " lldp: {system_name: tor-a, system_description: a switch}}\n"
                    "cross_connect: [[null_l, left], [null_r, right]]\n"
                    "workers: {lcores: [1]}\n");
  world.engine().start();
  const bond::BondLldp& left = world.lldp(0);
  const bond::BondLldp& right = world.lldp(1);
  // Heard, and LACP in sync: the link aggregation TLVs then say "aggregated" on both sides. An
  // LLDPDU sent before the far end's agent ran is lost and the next comes msgTxInterval (30 s)
  // later: wait for two.
  ASSERT_TRUE(run_control_until(
      world.engine(),
      [&] {
        for (std::size_t m = 0; m < 2; ++m) {
          const lldp::Neighbour* l = only_neighbour(left, m);
          const lldp::Neighbour* r = only_neighbour(right, m);
          if (l == nullptr || r == nullptr || !l->aggregation || !l->aggregation->enabled ||
              !r->aggregation || !r->aggregation->enabled)
            return false;
        }
        return true;
      },
      {}, 70 * kSecond))
      << "left hears " << left.agent(0).neighbours().size() << "+"
      << left.agent(1).neighbours().size() << ", right " << right.agent(0).neighbours().size()
      << "+" << right.agent(1).neighbours().size();
  for (std::size_t m = 0; m < 2; ++m) {
    const lldp::Lldpdu& heard_by_left = neighbour_of(left, m).info;
    EXPECT_EQ(lldp::describe(heard_by_left.chassis_id, true), "mac 02:22:00:00:00:01");
    EXPECT_EQ(lldp::describe(heard_by_left.port_id, false), "ifname b" + std::to_string(m));
    EXPECT_EQ(heard_by_left.system_name, "tor-a");
    EXPECT_EQ(heard_by_left.system_description, "a switch");
    EXPECT_EQ(heard_by_left.port_description, "member b" + std::to_string(m) + " of bond right");
    EXPECT_EQ(heard_by_left.ttl_s, 121);
    const lldp::Lldpdu& heard_by_right = neighbour_of(right, m).info;
    EXPECT_EQ(lldp::describe(heard_by_right.chassis_id, true), "mac 02:11:00:00:00:01");
    EXPECT_EQ(lldp::describe(heard_by_right.port_id, false), "ifname a" + std::to_string(m));
    EXPECT_EQ(heard_by_right.system_name, "server-7");
    EXPECT_EQ(neighbour_of(right, m).aggregation.value().aggregated_port_id, 1u);  // bond "left"
    EXPECT_EQ(left.agent(m).counters().discarded_total, 0u);
  }
  // One LACP partner, one chassis: no finding (a not_aggregated one during LACP's start has
  // cleared).
  ASSERT_TRUE(run_control_until(world.engine(), [&] {
    return left.findings().empty() && right.findings().empty();
  })) << (left.findings().empty() ? right.findings() : left.findings()).front().text;
  // The workers took every LLDPDU off the data path: none reached the null ports as data.
  const datapath::CounterTotals totals = world.engine().totals();
  EXPECT_GE(totals.to_control, left.agent(0).counters().frames_in);
  EXPECT_EQ(totals.tx_packets[world.engine().port(0).id()], 0u);
  EXPECT_EQ(totals.tx_packets[world.engine().port(1).id()], 0u);
  world.engine().stop();
}

TEST(Lldp, AMemberCabledToAThirdSystemAndASilentMemberAreFindings) {
  const std::string c0 = unique_name("ll"), c1 = unique_name("ll"), c2 = unique_name("ll"),
                    c3 = unique_name("ll");
  // a0, a1 to "right"; a2 to "other", a system of its own; a3's cable ends at a port that is
  // there and up but runs no LLDP (a bond with lldp off).
  CabledBonds world(
      "ports:\n" + null_port("null_l") + null_port("null_r") + null_port("null_o") +
      null_port("null_q") + cable_port("a0", c0, 'a') + cable_port("a1", c1, 'a') +
      cable_port("a2", c2, 'a') + cable_port("a3", c3, 'a') + cable_port("b0", c0, 'b') +
      cable_port("b1", c1, 'b') + cable_port("o0", c2, 'b') + cable_port("q0", c3, 'b') +
      "bonds:\n"
      "  - {name: left, members: [a0, a1, a2, a3], mode: static, lldp: {silent_grace_s: 2}}\n"
      "  - {name: right, members: [b0, b1], mode: static, mac: \"02:22:00:00:00:01\","
      " lldp: {system_name: tor-a}}\n"
      "  - {name: other, members: [o0], mode: static, mac: \"02:33:00:00:00:01\","
      " lldp: {system_name: tor-b}}\n"
      "  - {name: quiet, members: [q0], mode: static, lldp: off}\n"
      "cross_connect: [[null_l, left], [null_r, right], [null_o, other], [null_q, quiet]]\n"
      "workers: {lcores: [1]}\n");
  world.engine().start();
  const bond::BondLldp& left = world.lldp(0);
  EXPECT_EQ(world.engine().bond(3).lldp(), nullptr);
  ASSERT_TRUE(run_control_until(
      world.engine(),
      [&] {
        return has_finding(left, lldp::FindingKind::kDifferentChassis, {"a0", "a1", "a2"}) &&
               has_finding(left, lldp::FindingKind::kSilent, {"a3"});
      },
      {}, 30 * kSecond))
      << left.findings().size() << " findings";
  EXPECT_EQ(lldp::describe(neighbour_of(left, 2).info.chassis_id, true), "mac 02:33:00:00:00:01");
  const bond::Bond& bond = world.engine().bond(0);
  EXPECT_TRUE(has_event(bond,
                        "LLDP cabling: members lead to 2 chassis that are not one LACP "
                        "partner (mis-cabled?): a0 -> tor-a"));
  EXPECT_TRUE(has_event(bond, "LLDP cabling: member a3 hears no LLDP neighbour"));
  EXPECT_EQ(left.finding_counters(lldp::FindingKind::kDifferentChassis).raised, 1u);
  EXPECT_GE(left.finding_counters(lldp::FindingKind::kSilent).raised, 1u);
  // The member to the third system goes down: the finding clears, and is logged as cleared.
  rte_eth_dev_set_link_down(world.engine().port(6).id());  // a2
  ASSERT_TRUE(run_control_until(world.engine(), [&] {
    return !has_finding(left, lldp::FindingKind::kDifferentChassis, {"a0", "a1", "a2"}) &&
           has_event(bond, "LLDP cabling: cleared: members lead to 2 chassis");
  }));
  world.engine().stop();
}

// A neighbour the test plays: LLDPDUs into member 0's RX ring, braid's own taken from its TX.
std::vector<std::uint8_t> neighbour_frame(std::uint16_t ttl_s, std::uint8_t chassis = 1) {
  lldp::Lldpdu pdu;
  pdu.chassis_id = lldp::chassis_mac({0x02, 0x5e, 0, 0, 0, chassis});
  pdu.port_id = lldp::port_interface_name("swp7");
  pdu.ttl_s = ttl_s;
  pdu.system_name = "leaf-3";
  return lldp::build_frame({0x02, 0x5e, 0, 0, 1, chassis}, pdu);
}

std::size_t inject(BondRig& rig, std::size_t member, const std::vector<std::uint8_t>& frame,
                   std::size_t count = 1) {
  std::size_t queued = 0;
  for (std::size_t i = 0; i < count; ++i) {
    rte_mbuf* mbuf = mbuf_of(frame);
    if (mbuf == nullptr || rte_ring_enqueue(rig.member(member).to_port(), mbuf) != 0) {
      rte_pktmbuf_free(mbuf);
      break;
    }
    ++queued;
  }
  return queued;
}

bool pump_until(BondRig& rig, const std::function<bool()>& done, std::uint64_t timeout_ns) {
  const std::uint64_t deadline = monotonic_ns() + timeout_ns;
  while (monotonic_ns() < deadline) {
    rig.pump(0);
    if (done()) return true;
  }
  return false;
}

TEST(Lldp, ANeighbourThatGoesSilentIsForgottenWhenItsTtlRunsOut) {
  BondRig rig(2, ", mode: static, lldp: {tx_interval_s: 1, tx_hold: 2}");
  rig.engine().start();
  const bond::BondLldp& lldp = *rig.bond().lldp();
  constexpr std::uint16_t kTtl = 3;
  ASSERT_EQ(inject(rig, 0, neighbour_frame(kTtl)), 1u);
  ASSERT_TRUE(pump_until(
      rig, [&] { return only_neighbour(lldp, 0) != nullptr; }, 10 * kSecond));
  const lldp::Neighbour heard = neighbour_of(lldp, 0);
  EXPECT_EQ(heard.info.system_name, "leaf-3");
  EXPECT_EQ(heard.expires_ns, heard.last_update_ns + kTtl * kSecond);
  // braid answers on the member: its own LLDPDUs (TTL 1 s x 2 + 1) leave on the member's ring.
  ASSERT_TRUE(pump_until(
      rig, [&] { return rig.lldp_frames(0) >= 2; }, 10 * kSecond));
  EXPECT_EQ(lldp.ttl_s(), 3u);
  // Silence: gone once the TTL has run out, as an ageout (not a shutdown).
  ASSERT_TRUE(pump_until(
      rig, [&] { return lldp.agent(0).neighbours().empty(); }, 20 * kSecond));
  EXPECT_GE(monotonic_ns(), heard.expires_ns);
  EXPECT_EQ(lldp.agent(0).counters().ageouts, 1u);
  EXPECT_EQ(lldp.agent(0).counters().shutdowns_in, 0u);
  EXPECT_TRUE(lldp.agent(1).neighbours().empty());
  // A TTL of 0 forgets at once: heard again, then the neighbour's shutdown LLDPDU.
  ASSERT_EQ(inject(rig, 0, neighbour_frame(120)), 1u);
  ASSERT_TRUE(pump_until(
      rig, [&] { return only_neighbour(lldp, 0) != nullptr; }, 10 * kSecond));
  ASSERT_EQ(inject(rig, 0, neighbour_frame(0)), 1u);
  ASSERT_TRUE(pump_until(
      rig, [&] { return lldp.agent(0).neighbours().empty(); }, 10 * kSecond));
  EXPECT_EQ(lldp.agent(0).counters().shutdowns_in, 1u);
  EXPECT_EQ(lldp.agent(0).counters().ageouts, 1u);
  rig.engine().stop();
}

TEST(Lldp, HostileLldpdusAreCountedByReasonAndAFloodIsPoliced) {
  BondRig rig(2, ", mode: static");
  rig.engine().start();
  rig.send(1000);
  const bond::BondLldp& lldp = *rig.bond().lldp();
  const std::vector<std::uint8_t> good = neighbour_frame(120);
  // Each mangled copy of a good frame, and the reason the decoder must give.
  struct Hostile {
    std::vector<std::uint8_t> frame;
    lldp::RejectReason reason;
  };
  std::vector<Hostile> hostile;
  {
    std::vector<std::uint8_t> f = good;
    f[14] = static_cast<std::uint8_t>(3 << 1);  // the first TLV a TTL: no Chassis ID
    hostile.push_back({f, lldp::RejectReason::kMissingChassisId});
    f = good;
    f[15] = 0xff;  // the Chassis ID TLV runs past the frame
    f[14] |= 1;
    hostile.push_back({f, lldp::RejectReason::kTlvPastFrame});
    f = good;
    f[0] = 0x33;  // not the nearest-bridge address
    hostile.push_back({f, lldp::RejectReason::kBadDestinationMac});
    f = good;
    f[16] = 0;  // Chassis ID subtype 0 (reserved)
    hostile.push_back({f, lldp::RejectReason::kBadChassisIdSubtype});
  }
  constexpr std::size_t kEach = 3;
  for (const Hostile& h : hostile)
    ASSERT_EQ(inject(rig, 0, h.frame, kEach), kEach);
  // On member 1: a frame of the header alone (14 octets), and one of garbage after the header.
  ASSERT_EQ(inject(rig, 1, std::vector<std::uint8_t>(good.begin(), good.begin() + 14)), 1u);
  std::vector<std::uint8_t> garbage(good.begin(), good.begin() + 60);
  std::fill(garbage.begin() + 14, garbage.end(), 0xa5);
  ASSERT_EQ(inject(rig, 1, garbage), 1u);
  ASSERT_TRUE(pump_until(
      rig, [&] { return lldp.agent(0).counters().discarded_total == kEach * hostile.size(); },
      10 * kSecond))
      << lldp.agent(0).counters().discarded_total;
  for (const Hostile& h : hostile)
    EXPECT_EQ(lldp.agent(0).counters().discarded_for(h.reason), kEach) << lldp::to_string(h.reason);
  ASSERT_TRUE(pump_until(
      rig, [&] { return lldp.agent(1).counters().discarded_total == 2; }, 10 * kSecond));
  EXPECT_EQ(lldp.agent(0).neighbours().size(), 0u);

  // A flood of well-formed LLDPDUs from 200 chassis: the workers' policer lets a burst through
  // (and 16 a second), the table keeps max_neighbours, the rest are tooManyNeighbors drops.
  constexpr std::size_t kFlood = 200;
  std::size_t queued = 0;
  for (std::size_t i = 0; i < kFlood; ++i)
    queued += inject(rig, 0, neighbour_frame(120, static_cast<std::uint8_t>(i + 1)));
  ASSERT_EQ(queued, kFlood);
  const auto policed = [&] {
    return rig.engine()
        .totals()
        .drops[static_cast<std::size_t>(datapath::DropReason::kLldpPoliced)];
  };
  const auto reached_agent = [&] {
    const lldp::AgentCounters& c = lldp.agent(0).counters();
    return c.frames_in + lldp.counters(0).policed;
  };
  ASSERT_TRUE(pump_until(
      rig, [&] { return policed() + reached_agent() == kFlood; }, 10 * kSecond))
      << "policed " << policed() << ", reached the agent " << reached_agent();
  EXPECT_GT(policed(), 0u);
  EXPECT_EQ(lldp.agent(0).neighbours().size(), 4u);  // AgentConfig::max_neighbours
  EXPECT_EQ(lldp.agent(0).counters().drops, lldp.agent(0).counters().frames_in - 4);
  // Data kept flowing, and every packet is accounted for.
  rig.send(1000);
  const datapath::CounterTotals totals = rig.engine().totals();
  EXPECT_EQ(totals.rx(), totals.tx() + totals.dropped() + totals.to_control);
  EXPECT_EQ(rig.received(0) + rig.received(1), 2000u);
  rig.engine().stop();
}

}  // namespace
}  // namespace braid::test
