// braid's LACP bond against DPDK's own 802.3ad implementation (net_bonding mode 4) as the
// partner: an independent LACP stack on the other end of each "cable". The test thread is the
// wire: it relays frames between braid's members and the partner's members (capturing the
// LACPDUs to a pcap for tshark), can cut a cable (both ends go link-down, nothing passes), and
// drives both control planes: braid's poll_control and the partner bond's rx/tx bursts (DPDK's
// PMD runs its LACP only while the application polls it).
#include <gtest/gtest.h>
#include <rte_eth_bond.h>
#include <rte_eth_bond_8023ad.h>
#include <rte_ethdev.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "lacp/snapshot.hpp"
#include "trace/pcap_writer.hpp"
#include "traffic.hpp"

namespace braid::test {
namespace {

constexpr std::size_t kMembers = 2;
constexpr std::uint32_t kFlows = 1024;
constexpr std::uint32_t kRatePps = 100'000;

class LacpWorld {
 public:
  explicit LacpWorld(const std::string& capture_path)
      : host_(unique_name("lhost")),
        flows_(kFlows),
        to_partner_(kFlows),
        to_host_(kFlows),
        capture_(capture_path) {
    for (std::size_t m = 0; m < kMembers; ++m) {
      braid_side_.push_back(std::make_unique<RingPort>(unique_name("lbraid")));
      partner_side_.push_back(std::make_unique<RingPort>(unique_name("lpartner"), 1));
    }
    std::string yaml = "ports:\n  - {name: host, device: \"" + host_.name() + "\"}\n";
    for (std::size_t m = 0; m < kMembers; ++m) {
      yaml +=
          "  - {name: m" + std::to_string(m) + ", device: \"" + braid_side_[m]->name() + "\"}\n";
    }
    yaml +=
        "bonds:\n  - {name: up, members: [m0, m1], mode: lacp, lacp: {rate: fast}}\n"
        "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
    engine_ = std::make_unique<engine::Engine>(config::parse_config(yaml, "interop"));
    make_partner();
  }

  ~LacpWorld() {
    engine_.reset();
    rte_eth_dev_stop(partner_);
    rte_eth_bond_free(partner_name_.c_str());
  }

  engine::Engine& engine() { return *engine_; }

  void make_partner() {
    partner_name_ = unique_name("net_bonding_partner");
    const int id = rte_eth_bond_create(partner_name_.c_str(), BONDING_MODE_8023AD, 0);
    ASSERT_GE(id, 0) << "rte_eth_bond_create failed";
    partner_ = static_cast<std::uint16_t>(id);
    for (const auto& member : partner_side_) {
      ASSERT_EQ(rte_eth_bond_slave_add(partner_, member->port_id()), 0);
    }
    // Ring ports have no MAC of their own; give the partner system a real identity.
    rte_ether_addr partner_mac{{0x02, 0x50, 0x41, 0x52, 0x54, 0x01}};
    ASSERT_EQ(rte_eth_bond_mac_address_set(partner_, &partner_mac), 0);
    rte_eth_conf conf{};
    ASSERT_EQ(rte_eth_dev_configure(partner_, 1, 1, &conf), 0);
    ASSERT_EQ(rte_eth_rx_queue_setup(partner_, 0, 1024, 0, nullptr, test_mempool()), 0);
    ASSERT_EQ(rte_eth_tx_queue_setup(partner_, 0, 1024, 0, nullptr), 0);
    ASSERT_EQ(rte_eth_dev_start(partner_), 0);
    // The test frames are addressed to a host MAC, not the partner bond's: receive them anyway.
    rte_eth_promiscuous_enable(partner_);
  }

  // One round of everything: the wire, the partner, braid's control plane, host traffic. Traffic
  // is paced to `*_pps` packets per second per direction, a rate a 2-core ASan build keeps up with.
  void step(std::uint32_t host_pps, std::uint32_t partner_pps) {
    const std::uint64_t now = monotonic_ns();
    const std::uint64_t elapsed = std::min<std::uint64_t>(now - last_step_ns_, 10'000'000);
    last_step_ns_ = now;
    host_credit_ += static_cast<double>(host_pps) * static_cast<double>(elapsed) / 1e9;
    partner_credit_ += static_cast<double>(partner_pps) * static_cast<double>(elapsed) / 1e9;
    const auto host_packets = static_cast<std::uint32_t>(std::min(host_credit_, 64.0));
    const auto partner_packets = static_cast<std::uint32_t>(std::min(partner_credit_, 64.0));
    host_credit_ -= host_packets;
    partner_credit_ -= partner_packets;
    relay();
    partner_io(partner_packets);
    inject_host(host_packets);
    drain_host();
    engine_->poll_control(monotonic_ns());
  }

  void run_for(std::uint64_t ns, std::uint32_t host_packets = 0,
               std::uint32_t partner_packets = 0) {
    const std::uint64_t until = monotonic_ns() + ns;
    while (monotonic_ns() < until)
      step(host_packets, partner_packets);
  }

  bool braid_distributing(std::size_t m) const { return engine_->bond(0).lacp()->distributing(m); }
  bool partner_distributing(std::size_t m) const {
    struct rte_eth_bond_8023ad_slave_info info {};
    if (rte_eth_bond_8023ad_slave_info(partner_, partner_side_[m]->port_id(), &info) != 0) {
      return false;
    }
    return (info.actor_state & STATE_DISTRIBUTING) != 0;
  }
  std::uint8_t partner_actor_state(std::size_t m) const {
    struct rte_eth_bond_8023ad_slave_info info {};
    rte_eth_bond_8023ad_slave_info(partner_, partner_side_[m]->port_id(), &info);
    return info.actor_state;
  }
  bool converge(std::uint64_t limit_ns = 30'000'000'000ull) {
    const std::uint64_t start = monotonic_ns();
    while (!all_distributing() && monotonic_ns() - start < limit_ns)
      step(0, 0);
    return all_distributing();
  }
  bool all_distributing() const {
    for (std::size_t m = 0; m < kMembers; ++m) {
      if (!braid_distributing(m) || !partner_distributing(m)) return false;
    }
    return true;
  }

  std::string describe() const {
    std::string text = lacp::format_snapshot(engine_->bond(0).lacp()->snapshot());
    for (std::size_t m = 0; m < kMembers; ++m) {
      struct rte_eth_bond_8023ad_slave_info info {};
      rte_eth_bond_8023ad_slave_info(partner_, partner_side_[m]->port_id(), &info);
      char line[160];
      std::snprintf(line, sizeof line,
                    "partner member %zu: selected %d actor_state 0x%02x partner_state 0x%02x "
                    "agg %u\n",
                    m, static_cast<int>(info.selected), info.actor_state, info.partner_state,
                    info.agg_port_id);
      text += line;
    }
    text += "LACPDUs seen on the wire: " + std::to_string(captured_) + "\n";
    return text;
  }

  void cut_cable(std::size_t m, bool cut) {
    cut_[m] = cut;
    if (cut) {
      rte_eth_dev_set_link_down(braid_side_[m]->port_id());
      rte_eth_dev_set_link_down(partner_side_[m]->port_id());
    } else {
      rte_eth_dev_set_link_up(braid_side_[m]->port_id());
      rte_eth_dev_set_link_up(partner_side_[m]->port_id());
    }
  }

  std::uint64_t host_sent() const { return host_sent_; }
  std::uint64_t partner_sent() const { return partner_sent_; }
  const FlowTracker& at_partner() const { return to_partner_; }
  const FlowTracker& at_host() const { return to_host_; }
  std::uint64_t wire_packets(std::size_t m) const { return wire_data_[m]; }
  std::uint64_t lacpdus_captured() const { return captured_; }
  std::uint64_t lost_on_cut_cable() const { return lost_on_cut_; }
  std::uint64_t lost_to_full_rings() const { return wire_full_; }
  void close_capture() { capture_.close(); }

 private:
  static bool is_slow(const rte_mbuf* mbuf) {
    const auto* bytes = rte_pktmbuf_mtod(mbuf, const std::uint8_t*);
    return mbuf->data_len >= 14 && bytes[12] == 0x88 && bytes[13] == 0x09;
  }
  // braid's LLDPDUs (lldp on by default): control frames, not the traffic this test counts.
  static bool is_lldp(const rte_mbuf* mbuf) {
    const auto* bytes = rte_pktmbuf_mtod(mbuf, const std::uint8_t*);
    return mbuf->data_len >= 14 && bytes[12] == 0x88 && bytes[13] == 0xcc;
  }

  void relay_one(rte_ring* from, rte_ring* to, std::size_t m, bool count_data) {
    rte_mbuf* burst[64];
    const unsigned n = rte_ring_dequeue_burst(from, reinterpret_cast<void**>(burst), 64, nullptr);
    for (unsigned i = 0; i < n; ++i) {
      if (is_slow(burst[i])) {
        capture_.write({rte_pktmbuf_mtod(burst[i], const std::uint8_t*), burst[i]->data_len},
                       monotonic_ns());
        ++captured_;
      } else if (count_data && !is_lldp(burst[i])) {
        ++wire_data_[m];
      }
    }
    if (cut_[m]) {  // nothing crosses a cut cable
      lost_on_cut_ += n;
      rte_pktmbuf_free_bulk(burst, n);
      return;
    }
    const unsigned queued = rte_ring_enqueue_burst(to, reinterpret_cast<void**>(burst), n, nullptr);
    wire_full_ += n - queued;  // the receiving side's RX ring was full
    rte_pktmbuf_free_bulk(burst + queued, n - queued);
  }

  void relay() {
    for (std::size_t m = 0; m < kMembers; ++m) {
      relay_one(braid_side_[m]->from_port(), partner_side_[m]->to_port(), m, true);
      relay_one(partner_side_[m]->from_port(), braid_side_[m]->to_port(), m, false);
    }
  }

  void partner_io(std::uint32_t packets) {
    rte_mbuf* burst[64];
    const std::uint16_t n = rte_eth_rx_burst(partner_, 0, burst, 64);
    for (std::uint16_t i = 0; i < n; ++i) {
      if (!is_lldp(burst[i])) to_partner_.seen(FlowSet::stamp_of(burst[i]), 0);
    }
    rte_pktmbuf_free_bulk(burst, n);
    std::uint16_t made = 0;
    for (; made < packets && made < 64; ++made) {
      burst[made] = flows_.make(test_mempool(), next_flow_);
      if (burst[made] == nullptr) break;
      next_flow_ = (next_flow_ + 1) % kFlows;
    }
    // Always call tx_burst, even with nothing: the PMD sends its LACPDUs from there.
    const std::uint16_t sent = rte_eth_tx_burst(partner_, 0, burst, made);
    rte_pktmbuf_free_bulk(burst + sent, made - sent);
    partner_sent_ += sent;
  }

  void inject_host(std::uint32_t packets) {
    rte_mbuf* burst[64];
    std::uint32_t made = 0;
    for (; made < packets && made < 64; ++made) {
      burst[made] = flows_.make(test_mempool(), next_flow_);
      if (burst[made] == nullptr) break;
      next_flow_ = (next_flow_ + 1) % kFlows;
    }
    const unsigned queued =
        rte_ring_enqueue_burst(host_.to_port(), reinterpret_cast<void**>(burst), made, nullptr);
    rte_pktmbuf_free_bulk(burst + queued, made - queued);
    host_sent_ += queued;
  }

  void drain_host() {
    host_.drain([this](const rte_mbuf* frame) { to_host_.seen(FlowSet::stamp_of(frame), 0); });
  }

  RingPort host_;
  std::vector<std::unique_ptr<RingPort>> braid_side_;
  std::vector<std::unique_ptr<RingPort>> partner_side_;
  std::unique_ptr<engine::Engine> engine_;
  std::string partner_name_;
  std::uint16_t partner_ = 0;
  FlowSet flows_;
  FlowTracker to_partner_;
  FlowTracker to_host_;
  trace::PcapWriter capture_;
  std::array<bool, kMembers> cut_{};
  std::array<std::uint64_t, kMembers> wire_data_{};
  std::uint64_t host_sent_ = 0;
  std::uint64_t partner_sent_ = 0;
  std::uint64_t captured_ = 0;
  std::uint64_t lost_on_cut_ = 0;
  std::uint64_t wire_full_ = 0;
  std::uint64_t last_step_ns_ = monotonic_ns();
  double host_credit_ = 0;
  double partner_credit_ = 0;
  std::uint32_t next_flow_ = 0;
};

// Runs a shell command and returns what it wrote to stdout (through a file: popen's pipe
// does not survive EAL's signal and fd setup in this process).
std::string run(const std::string& command, const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "command.out";
  const int status = std::system((command + " > " + out.string() + " 2>/dev/null").c_str());
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  return status == 0 ? text.str() : "command failed: " + command + "\n" + text.str();
}

TEST(LacpInterop, BraidAndDpdkBondingAggregateCarryTrafficAndFailOver) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("braid-interop-" + std::to_string(getpid()) + unique_name("-"));
  std::filesystem::create_directories(dir);
  const std::string capture = (dir / "lacpdus.pcap").string();
  LacpWorld world(capture);
  world.engine().start();

  // Both sides reach Collecting+Distributing on both links.
  const std::uint64_t start = monotonic_ns();
  while (!world.all_distributing() && monotonic_ns() - start < 30'000'000'000ull)
    world.step(0, 0);
  ASSERT_TRUE(world.all_distributing()) << "no aggregation within 30 s\n" << world.describe();
  std::printf("interop: both sides distributing on %zu links after %.2f s\n%s", kMembers,
              static_cast<double>(monotonic_ns() - start) / 1e9, world.describe().c_str());

  // Traffic both ways, every packet accounted for (rates the 2-core machine keeps up with).
  world.run_for(1'000'000'000, kRatePps, kRatePps);
  world.run_for(200'000'000);  // let the last packets arrive
  EXPECT_EQ(world.lost_to_full_rings(), 0u);
  EXPECT_EQ(world.at_partner().received(), world.host_sent());
  EXPECT_EQ(world.at_host().received(), world.partner_sent());
  EXPECT_EQ(world.engine().totals().dropped(), 0u);
  EXPECT_GT(world.host_sent(), 1000u);
  EXPECT_GT(world.wire_packets(0), world.host_sent() / 10) << "link 0 carried too little";
  EXPECT_GT(world.wire_packets(1), world.host_sent() / 10) << "link 1 carried too little";
  EXPECT_EQ(world.at_partner().reordered(), 0u);

  // Cut cable 0: traffic moves to link 1.
  world.cut_cable(0, true);
  world.run_for(300'000'000);
  EXPECT_FALSE(world.braid_distributing(0));
  const std::uint64_t link0 = world.wire_packets(0);
  const std::uint64_t partner_before = world.at_partner().received();
  const std::uint64_t host_before = world.host_sent();
  world.run_for(500'000'000, kRatePps, 0);
  world.run_for(200'000'000);
  EXPECT_EQ(world.wire_packets(0), link0) << "braid still sends on the cut link";
  EXPECT_EQ(world.at_partner().received() - partner_before, world.host_sent() - host_before);

  // Restore it: both links distribute again and carry traffic.
  world.cut_cable(0, false);
  const std::uint64_t restored = monotonic_ns();
  while (!world.all_distributing() && monotonic_ns() - restored < 30'000'000'000ull) {
    world.step(0, 0);
  }
  ASSERT_TRUE(world.all_distributing()) << "link 0 did not come back";
  std::printf("interop: link 0 distributing again %.2f s after the cable was restored\n",
              static_cast<double>(monotonic_ns() - restored) / 1e9);
  world.run_for(500'000'000, kRatePps, 0);
  EXPECT_GT(world.wire_packets(0), link0);

  world.engine().stop();
  const datapath::CounterTotals totals = world.engine().totals();
  EXPECT_TRUE(totals.balanced());
  EXPECT_GT(totals.to_control, 0u);  // LACPDUs reached braid's control thread
  world.close_capture();

  // The LACPDUs on the wire, as an independent dissector reads them.
  if (std::system("command -v tshark >/dev/null 2>&1") == 0) {
    const std::string fields =
        run("tshark -r " + capture +
                " -Y lacp -T fields -E separator=, -e lacp.actor.sysid -e lacp.actor.key "
                "-e lacp.actor.port -e lacp.actor.state -e lacp.partner.sysid",
            dir);
    char bond_mac[RTE_ETHER_ADDR_FMT_SIZE];
    rte_ether_format_addr(bond_mac, sizeof bond_mac, &world.engine().bond(0).mac());
    std::string lower(bond_mac);
    for (char& c : lower)
      c = static_cast<char>(std::tolower(c));
    EXPECT_NE(fields.find(lower), std::string::npos)
        << "no LACPDU from braid's system " << lower << " in:\n"
        << fields;
    // braid's LACPDUs once aggregated: Activity, short Timeout, Aggregation, Sync, Collecting,
    // Distributing = 0x3f.
    EXPECT_NE(fields.find(lower + ","), std::string::npos);
    EXPECT_NE(fields.find("0x3f"), std::string::npos) << fields.substr(0, 2000);
  }
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Issue 13 item 1, issue 32: a member taken out of service while its link stays up is withdrawn
// (an LACPDU with Synchronization, Collecting and Distributing cleared, sent at once), so the
// partner stops sending on it within a round trip; DPDK's bond would otherwise keep it for its own
// timeout (it advertises long timeout: 90 s). DPDK's bond recomputes our Synchronization bit from
// its own echo, but stops distributing on our cleared Collecting bit (it keeps collecting, which
// costs nothing: braid sends nothing there).
TEST(LacpInterop, AdminDownAndStopWithdrawSoThePartnerStopsSendingAtOnce) {
  LacpWorld world((std::filesystem::temp_directory_path() /
                   ("braid-goodbye-" + std::to_string(getpid()) + ".pcap"))
                      .string());
  world.engine().start();
  ASSERT_TRUE(world.converge()) << world.describe();
  // Past the 3-per-second transmit limit's window of the convergence (802.1AX 6.4.16).
  world.run_for(1'100'000'000);
  world.engine().bond(0).set_member_admin(1, false, monotonic_ns());
  const std::uint64_t down = monotonic_ns();
  while (world.partner_distributing(1) && monotonic_ns() - down < 3'000'000'000ull)
    world.step(0, 0);
  const double took_ms = static_cast<double>(monotonic_ns() - down) / 1e6;
  EXPECT_FALSE(world.partner_distributing(1)) << world.describe();
  // DPDK's bond runs its state machines every 100 ms.
  EXPECT_LT(took_ms, 250.0);
  EXPECT_TRUE(world.partner_distributing(0));
  // braid heard it: the drain ended acknowledged, not by its patience.
  while (!world.engine().bond(0).service(1).settled() && monotonic_ns() - down < 3'000'000'000ull)
    world.step(0, 0);
  EXPECT_EQ(world.engine().bond(0).service(1).last_release(), bond::Release::kAcknowledged);
  std::printf("interop: partner stopped sending on the drained member %.1f ms after the command\n",
              took_ms);
  world.engine().bond(0).set_member_admin(1, true, monotonic_ns());
  ASSERT_TRUE(world.converge()) << world.describe();
  world.run_for(1'100'000'000);
  // A clean stop: every member withdrawn before the workers stop (their links stay up). This
  // thread plays the partner too and does not while stop() waits, so braid's wait ends with the
  // patience here; the partner reads the withdrawal as soon as it runs again.
  world.engine().stop();
  const std::uint64_t stopped = monotonic_ns();
  while ((world.partner_distributing(0) || world.partner_distributing(1)) &&
         monotonic_ns() - stopped < 3'000'000'000ull)
    world.step(0, 0);
  const double stop_ms = static_cast<double>(monotonic_ns() - stopped) / 1e6;
  EXPECT_FALSE(world.partner_distributing(0));
  EXPECT_FALSE(world.partner_distributing(1));
  EXPECT_LT(stop_ms, 250.0);
  std::printf("interop: partner stopped sending on both members %.1f ms after braid stopped\n",
              stop_ms);
}

// Issue 13 item 11: `stop` (console) stops forwarding, not LACP: on a ring-path member (no
// rte_flow on ring ports: workers divert the LACPDUs) the workers keep receiving them.
TEST(LacpInterop, StoppedForwardingKeepsLacpUpOnTheRingPath) {
  LacpWorld world((std::filesystem::temp_directory_path() /
                   ("braid-pause-" + std::to_string(getpid()) + ".pcap"))
                      .string());
  world.engine().start();
  ASSERT_TRUE(world.converge()) << world.describe();
  ASSERT_FALSE(world.engine().bond(0).members()[0].slow_rx_queue.has_value())
      << "the ring path is the case under test";
  world.engine().pause();
  EXPECT_FALSE(world.engine().forwarding());
  // Twice the short timeout, with traffic from the partner (dropped as `stopped`).
  world.run_for(6'500'000'000ull, 0, kRatePps / 10);
  EXPECT_TRUE(world.all_distributing()) << world.describe();
  const datapath::CounterTotals stopped = world.engine().totals();
  EXPECT_GT(stopped.drops[static_cast<std::size_t>(datapath::DropReason::kStopped)], 0u);
  world.engine().resume();
  world.run_for(500'000'000, 0, kRatePps);
  world.run_for(200'000'000);
  // Everything the partner sent reached the host, but what arrived while forwarding was
  // stopped (counted), and LACP never left Collecting (nothing refused as not_collecting).
  const datapath::CounterTotals totals = world.engine().totals();
  EXPECT_EQ(world.at_host().received() +
                totals.drops[static_cast<std::size_t>(datapath::DropReason::kStopped)],
            world.partner_sent());
  EXPECT_EQ(totals.drops[static_cast<std::size_t>(datapath::DropReason::kNotCollecting)], 0u);
  world.engine().stop();
  EXPECT_TRUE(world.engine().totals().balanced());
}

// Issue 13 item 13: after a cable comes back, braid distributes on it only once the partner
// collects there (DPDK's bond runs independent control: Synchronization comes before
// Collecting).
TEST(LacpInterop, AfterALinkFlapBraidWaitsForThePartnerToCollect) {
  LacpWorld world((std::filesystem::temp_directory_path() /
                   ("braid-flap-" + std::to_string(getpid()) + ".pcap"))
                      .string());
  world.engine().start();
  ASSERT_TRUE(world.converge()) << world.describe();
  world.cut_cable(1, true);
  world.run_for(500'000'000);
  world.cut_cable(1, false);
  const std::uint64_t restored = monotonic_ns();
  std::uint64_t early = 0;
  std::uint64_t first_distributing_ns = 0;
  while (!world.all_distributing() && monotonic_ns() - restored < 40'000'000'000ull) {
    world.step(0, 0);
    if (world.engine().bond(0).table()->distributing[1]) {
      if (first_distributing_ns == 0) first_distributing_ns = monotonic_ns() - restored;
      if ((world.partner_actor_state(1) & STATE_COLLECTING) == 0) ++early;
    }
  }
  ASSERT_TRUE(world.all_distributing()) << world.describe();
  EXPECT_EQ(early, 0u) << "braid distributed on link 1 while the partner did not collect there";
  std::printf("interop: link 1 distributing %.2f s after the flap, partner collecting by then\n",
              static_cast<double>(first_distributing_ns) / 1e9);
  world.engine().stop();
}

}  // namespace
}  // namespace braid::test
