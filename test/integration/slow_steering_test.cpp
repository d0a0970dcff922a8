// Slow Protocols steering on real vdevs: a bond member on braid's virtual cable (which emulates
// what an rte_flow rule does on a NIC) gets its LACPDUs on its own RX queue, read by the control
// thread and parsed by LACP, while data still goes through the workers to the host; a frame
// mis-steered onto that queue is counted, not lost; steering goes when the port stops. On net_null,
// whose PMD has no rte_flow, `on` fails with the PMD's reason, `auto` falls back to the workers'
// ring, `off` adds no queue at all.
#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "config/config_loader.hpp"
#include "port/virtual_cable.hpp"
#include "slow_frames.hpp"

namespace braid::test {
namespace {

constexpr std::size_t kLacpdus = 5;
constexpr std::size_t kDataFrames = 100;
constexpr std::size_t kMisSteered = 3;

std::string bond_yaml(const std::string& host, const std::string& member,
                      const std::string& bond_settings) {
  return "ports:\n  - {name: host, device: \"" + host + "\"}\n  - {name: m0, device: \"" + member +
         "\"}\nbonds:\n  - {name: up, members: [m0]" + bond_settings +
         "}\ncross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
}

std::size_t enqueue(rte_ring* ring, const std::vector<std::uint8_t>& bytes, std::size_t count) {
  std::size_t queued = 0;
  for (std::size_t i = 0; i < count; ++i) {
    rte_mbuf* mbuf = mbuf_of(bytes);
    if (mbuf == nullptr || rte_ring_enqueue(ring, mbuf) != 0) {
      rte_pktmbuf_free(mbuf);
      break;
    }
    ++queued;
  }
  return queued;
}

bool has_event(const bond::Bond& bond, const std::string& text) {
  for (const bond::BondEvent& event : bond.events()) {
    if (event.text.find(text) != std::string::npos) return true;
  }
  return false;
}

// A bond whose one member is end "a" of a virtual cable with steering on; the test is the
// partner at end "b" (it writes the ring end "a" reads) and reads what the bond forwards to its
// host port.
class SteeredCable {
 public:
  explicit SteeredCable(const std::string& mode)
      : host_(unique_name("sthost")),
        cable_(unique_name("st")),
        engine_(std::make_unique<engine::Engine>(config::parse_config(
            bond_yaml(host_.name(), device(), ", mode: " + mode + ", slow_steering: on"),
            "steering"))),
        member_port_(engine_->port(1).id()),
        inbound_(rte_ring_lookup(("cab_" + cable_ + "_ba").c_str())) {}
  ~SteeredCable() {
    engine_.reset();
    rte_eth_dev_close(member_port_);  // braid leaves cable ends open (the demo reuses them)
  }
  SteeredCable(const SteeredCable&) = delete;
  SteeredCable& operator=(const SteeredCable&) = delete;

  std::string device() const { return "cable:" + cable_ + "/a"; }
  engine::Engine& engine() { return *engine_; }
  const bond::Bond& bond() const { return engine_->bond(0); }
  std::uint16_t member_port() const { return member_port_; }
  std::uint64_t data_at_host() const { return data_at_host_; }

  // LACPDUs interleaved with data frames, as the partner sends them. Returns whether all fit.
  bool send(std::size_t lacpdus, std::size_t data_frames) {
    std::size_t sent = 0;
    for (std::size_t round = 0; round < lacpdus; ++round) {
      sent += enqueue(inbound_, lacpdu_, 1);
      sent += enqueue(inbound_, data_, data_frames / lacpdus);
    }
    return sent == lacpdus + data_frames;
  }

  bool run_until(const std::function<bool()>& done) {
    return run_control_until(*engine_, done, [this] { drain_host(); });
  }
  // Every data frame sent so far has gone through a worker, and none waits in a TX buffer.
  bool data_accounted(std::size_t data_frames) const {
    const datapath::CounterTotals totals = engine_->totals();
    return totals.rx_packets[member_port_] == data_frames && totals.buffered == 0;
  }
  const std::vector<std::uint8_t>& data() const { return data_; }

 private:
  void drain_host() {
    host_.drain([this](const rte_mbuf* frame) { data_at_host_ += holds(frame, data_) ? 1 : 0; });
  }

  RingPort host_;
  std::string cable_;
  std::unique_ptr<engine::Engine> engine_;
  std::uint16_t member_port_;
  rte_ring* inbound_;
  std::vector<std::uint8_t> lacpdu_ = partner_lacpdu();
  std::vector<std::uint8_t> data_ = data_frame();
  std::uint64_t data_at_host_ = 0;
};

TEST(SlowSteering, SteeredLacpdusReachLacpOnTheirOwnQueue) {
  SteeredCable cable("lacp");
  const drivers::EthdevPort& port = cable.engine().port(1);
  ASSERT_EQ(port.slow_rx_queue(), std::optional<std::uint16_t>(1));
  EXPECT_EQ(port.rx_queues(), 1) << "workers poll the data queue only";
  const bond::Bond& bond = cable.bond();
  EXPECT_EQ(bond.members()[0].slow_rx_queue, std::optional<std::uint16_t>(1));
  EXPECT_TRUE(has_event(bond, "member m0: Slow Protocols steered to RX queue 1"));
  cable.engine().start();
  ASSERT_TRUE(cable.send(kLacpdus, kDataFrames));
  ASSERT_TRUE(cable.run_until([&] {
    return bond.counters().slow_rx_steered == kLacpdus && cable.data_accounted(kDataFrames);
  }));

  EXPECT_EQ(bond.counters().slow_rx_diverted, 0u) << "the NIC (cable) steered every LACPDU";
  const lacp::PortCounters& lacp_counters = bond.lacp()->counters(0);
  EXPECT_EQ(lacp_counters.lacpdu_rx + lacp_counters.lacpdu_rx_ignored, kLacpdus);
  EXPECT_EQ(lacp_counters.bad_pdu_total, 0u);
  // Workers saw exactly the data frames: none of the LACPDUs went through their queue. LACP
  // has not reached Collecting yet, so the collector refuses them (802.1AX 6.2.11).
  const datapath::CounterTotals totals = cable.engine().totals();
  EXPECT_EQ(totals.rx_packets[cable.member_port()], kDataFrames);
  EXPECT_EQ(totals.to_control, 0u);
  EXPECT_EQ(cable.data_at_host() +
                totals.drops[static_cast<std::size_t>(datapath::DropReason::kNotCollecting)],
            kDataFrames);
}

TEST(SlowSteering, DataStillReachesTheHostThroughTheWorkers) {
  SteeredCable cable("static");
  cable.engine().start();
  ASSERT_TRUE(cable.send(kLacpdus, kDataFrames));
  const bond::BondCounters& counters = cable.bond().counters();
  ASSERT_TRUE(cable.run_until([&] {
    return counters.slow_rx_steered == kLacpdus && cable.data_at_host() == kDataFrames;
  })) << "steered "
      << counters.slow_rx_steered << ", data at host " << cable.data_at_host();
  std::printf("cable: %llu LACPDUs steered, %llu diverted, %llu of %zu data frames at the host\n",
              static_cast<unsigned long long>(counters.slow_rx_steered),
              static_cast<unsigned long long>(counters.slow_rx_diverted),
              static_cast<unsigned long long>(cable.data_at_host()), kDataFrames);
  EXPECT_EQ(counters.slow_rx_diverted, 0u);
  EXPECT_EQ(counters.slow_frames_ignored, kLacpdus);  // mode static: counted and ignored
  const datapath::CounterTotals totals = cable.engine().totals();
  EXPECT_EQ(totals.rx_packets[cable.member_port()], kDataFrames);
  EXPECT_EQ(totals.to_control, 0u);
  EXPECT_EQ(totals.dropped(), 0u);
}

TEST(SlowSteering, AFrameMisSteeredOntoTheSlowQueueIsCountedNotLostAndRulesGoAtStop) {
  SteeredCable cable("static");
  cable.engine().start();
  // A NIC that puts data frames on the slow queue: dropped under a named reason, and logged.
  rte_ring* slow_ring = drivers::cable_slow_ring(cable.device());
  ASSERT_NE(slow_ring, nullptr);
  ASSERT_EQ(enqueue(slow_ring, cable.data(), kMisSteered), kMisSteered);
  const bond::BondCounters& counters = cable.bond().counters();
  ASSERT_TRUE(cable.run_until([&] { return counters.slow_queue_misdirected == kMisSteered; }));
  EXPECT_EQ(counters.slow_rx_steered, 0u);
  EXPECT_TRUE(has_event(cable.bond(), "member m0: a frame that is not Slow Protocols"));
  EXPECT_EQ(cable.engine().totals().rx_packets[cable.member_port()], 0u);

  cable.engine().stop();
  EXPECT_FALSE(cable.engine().port(1).slow_rx_queue().has_value()) << "steering outlived the port";
  EXPECT_TRUE(cable.engine().totals().balanced());
}

TEST(SlowSteering, OnFailsWithThePmdsReasonWhenTheDeviceHasNoRteFlow) {
  RingPort host(unique_name("sthost"));
  const std::string device = unique_name("net_null_st") + ",no-rx=1";
  try {
    engine::Engine engine(config::parse_config(
        bond_yaml(host.name(), device, ", mode: static, slow_steering: on"), "steering"));
    FAIL() << "net_null has no rte_flow, yet slow_steering: on started";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("bond up: member m0 (driver net_null) cannot steer Slow Protocols"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("slow_steering is on: rte_flow_validate: Function not implemented"),
              std::string::npos)
        << message;
  }
}

TEST(SlowSteering, AutoFallsBackToTheRingAndGivesTheQueueToTheWorkers) {
  RingPort host(unique_name("sthost"));
  const std::string device = unique_name("net_null_st") + ",no-rx=1";
  engine::Engine engine(config::parse_config(
      bond_yaml(host.name(), device, ", mode: static, slow_steering: auto"), "steering"));
  const drivers::EthdevPort& port = engine.port(1);
  EXPECT_FALSE(port.slow_rx_queue().has_value());
  // The queue stays (net_null spreads nothing, but a NIC without rte_flow may): workers poll it.
  EXPECT_EQ(port.rx_queues(), 2);
  EXPECT_NE(engine.placement_report().find("m0/rxq1"), std::string::npos)
      << engine.placement_report();
  EXPECT_TRUE(has_event(engine.bond(0),
                        "member m0: Slow Protocols over the workers' ring (rte_flow_validate: "
                        "Function not implemented)"));
  EXPECT_FALSE(engine.bond(0).members()[0].slow_rx_queue.has_value());
}

TEST(SlowSteering, OffAddsNoQueueAndTriesNothing) {
  RingPort host(unique_name("sthost"));
  const std::string device = unique_name("net_null_st") + ",no-rx=1";
  engine::Engine engine(config::parse_config(
      bond_yaml(host.name(), device, ", mode: static, slow_steering: off"), "steering"));
  rte_eth_dev_info info{};
  ASSERT_EQ(rte_eth_dev_info_get(engine.port(1).id(), &info), 0);
  EXPECT_EQ(info.nb_rx_queues, 1);
  EXPECT_EQ(engine.port(1).rx_queues(), 1);
  EXPECT_FALSE(has_event(engine.bond(0), "Slow Protocols"));
}

TEST(SlowSteering, AMemberWithoutASpareRxQueueFallsBackWithTheReason) {
  RingPort host(unique_name("sthost"));
  RingPort member(unique_name("stmember"));  // one RX ring: no room for a slow queue
  engine::Engine engine(
      config::parse_config(bond_yaml(host.name(), member.name(), ", mode: static"), "steering"));
  EXPECT_EQ(engine.port(1).rx_queues(), 1);
  EXPECT_TRUE(has_event(engine.bond(0),
                        "member m0: Slow Protocols over the workers' ring (the device has 1 RX "
                        "queue, none left after 1 data queue)"));
}

}  // namespace
}  // namespace braid::test
