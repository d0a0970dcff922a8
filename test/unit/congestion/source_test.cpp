#include "congestion/source.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "congestion/sim_source.hpp"

namespace braid::congestion {
namespace {

using F = sched::CongestionCounters;

const std::string kFixtures = BRAID_CONGESTION_FIXTURES;

Xstats load_xstats(const std::string& file) {
  std::ifstream in(kFixtures + "/" + file);
  Xstats xstats;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    std::uint64_t value = 0;
    fields >> name >> value;
    xstats.emplace_back(name, value);
  }
  return xstats;
}

// `ethtool -S` output: "NIC statistics:", then "     name: value" lines.
Xstats load_ethtool(const std::string& file) {
  std::ifstream in(kFixtures + "/" + file);
  Xstats stats;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t colon = line.rfind(": ");
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const std::size_t begin = line.find_first_not_of(' ');
    stats.emplace_back(line.substr(begin, colon - begin), std::stoull(line.substr(colon + 2)));
  }
  return stats;
}

struct Log {
  std::vector<std::string> lines;
  Logger logger() {
    return [this](std::size_t member, const std::string& what) {
      lines.push_back("congestion: member " + std::to_string(member) + ": " + what);
    };
  }
};

// The mlx5 source as braid runs it on a ConnectX port: DPDK's xstats under the PMD's names, the
// kernel netdev's ethtool stats (found through sysfs by PCI address) and the RDMA hw_counters.
class Mlx5 {
 public:
  Mlx5() {
    settings.sysfs_root = kFixtures + "/infiniband";
    settings.sys_root = kFixtures + "/sys";
    settings.pci_addresses = {"0000:3b:00.0"};  // mlx5_0, netdev ens1f0np0
    netdevs["ens1f0np0"] = load_ethtool("mlx5e_ethtool_stats.txt");
  }

  std::unique_ptr<Source> make() {
    return make_mlx5_source(
        settings,
        [this](std::size_t) {
          ++xstats_reads;
          return xstats;
        },
        [this](const std::string& ifname) {
          read.push_back(ifname);
          const auto it = netdevs.find(ifname);
          if (it == netdevs.end()) {
            return EthtoolStats{{},
                                "ethtool stats of " + ifname +
                                    ": ETHTOOL_GSSET_INFO: no netdev of that name in this "
                                    "network namespace"};
          }
          return EthtoolStats{it->second, ""};
        },
        log.logger());
  }

  Mlx5Settings settings;
  Xstats xstats = load_xstats("mlx5_xstats.txt");
  std::map<std::string, Xstats> netdevs;  // what the ethtool reader serves
  std::vector<std::string> read;          // the netdevs it was asked for
  int xstats_reads = 0;
  Log log;
};

std::uint8_t pfc_mask(std::initializer_list<unsigned> priorities) {
  unsigned mask = 0;
  for (const unsigned p : priorities)
    mask |= 1u << p;
  return static_cast<std::uint8_t>(mask);
}

Xstats without(Xstats xstats, std::initializer_list<std::string_view> names) {
  std::erase_if(xstats, [&names](const auto& stat) {
    return std::find(names.begin(), names.end(), stat.first) != names.end();
  });
  return xstats;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& line : lines)
    all += line + "\n";
  return all;
}

TEST(Mlx5Source, PausesDiscardsAndTxFromOneReadOfTheNetdevsEthtoolStats) {
  Mlx5 mlx5;
  const F c = mlx5.make()->read(0, 1);
  // rx_prio3_pause, rx_prio3_pause_duration: the 22.11 PMD has no such xstat, mlx5e has them.
  EXPECT_EQ(c.pause_frames, 48211u);
  EXPECT_EQ(c.pause_duration_us, 2410550u);
  // tx_discards_phy (the transmit side; rx_discards_phy's 1733 are braid's own RX lacking
  // buffers) from the same read; packets sent are what braid's queues sent (xstat
  // tx_good_packets), not tx_packets_phy (everything the port sent, the host's RDMA included).
  EXPECT_EQ(c.discards, 0u);
  EXPECT_EQ(c.tx_packets, 908172635u);
  EXPECT_EQ(mlx5.xstats_reads, 1);
  EXPECT_EQ(c.ecn_marked, 35121u);
  EXPECT_EQ(c.cnp, 8042u);
  EXPECT_EQ(c.present, F::kPauseFrames | F::kPauseDurationUs | F::kDiscards | F::kTxPackets |
                           F::kEcnMarked | F::kCnp);
  EXPECT_EQ(mlx5.read, (std::vector<std::string>{"ens1f0np0"}));  // found under 0000:3b:00.0/net
  EXPECT_TRUE(mlx5.log.lines.empty()) << joined(mlx5.log.lines);
}

// Issue 34 item 3: a member's transmit weight fell for braid's own receive discards.
TEST(Mlx5Source, DiscardsAreTheTransmitSidesNeverTheReceiveSides) {
  Mlx5 mlx5;
  for (auto& [name, value] : mlx5.netdevs["ens1f0np0"]) {
    if (name == "tx_discards_phy") value = 17;
  }
  const F c = mlx5.make()->read(0, 1);
  EXPECT_EQ(c.discards, 17u);  // not rx_discards_phy's 1733
  EXPECT_TRUE(mlx5.log.lines.empty()) << joined(mlx5.log.lines);
}

TEST(Mlx5Source, DiscardsFallBackToThePmdsXstatsWhenTheNetdevLacksThem) {
  Mlx5 mlx5;
  mlx5.netdevs["ens1f0np0"] = without(mlx5.netdevs["ens1f0np0"], {"tx_discards_phy"});
  for (auto& [name, value] : mlx5.xstats) {
    if (name == "tx_phy_discard_packets") value = 5;
  }
  const F c = mlx5.make()->read(0, 1);
  EXPECT_EQ(c.discards, 5u);            // xstat tx_phy_discard_packets
  EXPECT_EQ(c.tx_packets, 908172635u);  // xstat tx_good_packets
  EXPECT_EQ(mlx5.xstats_reads, 1);
  EXPECT_EQ(c.pause_frames, 48211u);
  EXPECT_TRUE(mlx5.log.lines.empty()) << joined(mlx5.log.lines);
}

TEST(Mlx5Source, OlderXstatNamesStillCountWithoutANetdev) {
  Mlx5 mlx5;
  mlx5.settings.netdevs = {"ens9f0np0"};  // named, but not there
  mlx5.xstats = {{"tx_discards_phy", 7}, {"tx_good_packets", 900}};
  const F c = mlx5.make()->read(0, 1);
  EXPECT_EQ(c.discards, 7u);
  EXPECT_EQ(c.tx_packets, 900u);
  EXPECT_FALSE(c.has(F::kPauseFrames));
  EXPECT_EQ(mlx5.read, (std::vector<std::string>{"ens9f0np0"}));
  ASSERT_EQ(mlx5.log.lines.size(), 1u) << joined(mlx5.log.lines);
  EXPECT_NE(mlx5.log.lines[0].find("PFC pause counters (ethtool stats of ens9f0np0: "),
            std::string::npos)
      << mlx5.log.lines[0];
}

TEST(Mlx5Source, WithoutANetdevThePausesAreLeftOutAndReportedOnce) {
  Mlx5 mlx5;
  mlx5.settings.pci_addresses = {"0000:99:00.0"};  // no netdev, no RDMA device
  auto source = mlx5.make();
  for (int i = 0; i < 3; ++i) {
    const F c = source->read(0, 1);
    EXPECT_FALSE(c.has(F::kPauseFrames));
    EXPECT_FALSE(c.has(F::kPauseDurationUs));
    EXPECT_EQ(c.discards, 0u);  // xstat tx_phy_discard_packets
    EXPECT_EQ(c.tx_packets, 908172635u);
    EXPECT_EQ(c.present, F::kDiscards | F::kTxPackets);
  }
  EXPECT_TRUE(mlx5.read.empty());
  // The netdev, the RDMA device: once each, not once per read or per counter.
  ASSERT_EQ(mlx5.log.lines.size(), 2u) << joined(mlx5.log.lines);
  EXPECT_EQ(mlx5.log.lines[0],
            "congestion: member 0: PFC pause counters (no kernel netdev under " + kFixtures +
                "/sys/bus/pci/devices/0000:99:00.0/net; name it in congestion.netdevs) not "
                "available; feedback uses the other counters");
  EXPECT_NE(mlx5.log.lines[1].find("RDMA device"), std::string::npos) << mlx5.log.lines[1];
}

TEST(Mlx5Source, ThePrioritySettingPicksThatPrioritysPauseCounters) {
  Mlx5 mlx5;
  mlx5.settings.pfc.bond = 4;
  const F four = mlx5.make()->read(0, 1);
  EXPECT_EQ(four.pause_frames, 917u);
  EXPECT_EQ(four.pause_duration_us, 45850u);
  EXPECT_TRUE(mlx5.log.lines.empty()) << joined(mlx5.log.lines);

  // PFC is off on priority 0: mlx5e lists no rx_prio0_* pause counters.
  mlx5.settings.pfc.bond = 0;
  auto source = mlx5.make();
  source->read(0, 1);
  const F zero = source->read(0, 2);
  EXPECT_FALSE(zero.has(F::kPauseFrames));
  EXPECT_FALSE(zero.has(F::kPauseDurationUs));
  EXPECT_EQ(zero.present, F::kDiscards | F::kTxPackets | F::kEcnMarked | F::kCnp);
  ASSERT_EQ(mlx5.log.lines.size(), 2u) << joined(mlx5.log.lines);
  EXPECT_EQ(mlx5.log.lines[0],
            "congestion: member 0: rx_prio0_pause in the ethtool stats of ens1f0np0 (mlx5e lists "
            "it only while PFC is on for priority 0) not available; feedback uses the other "
            "counters");
  EXPECT_NE(mlx5.log.lines[1].find("rx_prio0_pause_duration in the ethtool stats of ens1f0np0"),
            std::string::npos)
      << mlx5.log.lines[1];
}

TEST(Mlx5Source, EveryPriorityInUseReadsItsOwnPauseCounters) {
  Mlx5 mlx5;
  // The bond on 3, classes on 4 and 0 (PFC is off on 0: mlx5e lists no rx_prio0_*).
  mlx5.settings.pfc = {3, pfc_mask({0, 3, 4})};
  auto source = mlx5.make();
  source->read(0, 1);
  const F c = source->read(0, 2);
  EXPECT_EQ(c.pause_frames, 48211u);  // the bond's priority, as before
  EXPECT_EQ(c.pause_duration_us, 2410550u);
  EXPECT_EQ(c.priority_frames_read, pfc_mask({3, 4}));
  EXPECT_EQ(c.priority_duration_read, pfc_mask({3, 4}));
  EXPECT_EQ(c.priority_pause_frames[3], 48211u);
  EXPECT_EQ(c.priority_pause_frames[4], 917u);
  EXPECT_EQ(c.priority_pause_duration_us[4], 45850u);
  EXPECT_EQ(c.priority_pause_frames[0], 0u);
  // Packets sent per priority (the storm watchdog's progress): listed for every priority.
  EXPECT_EQ(c.priority_tx_read, pfc_mask({0, 3, 4}));
  EXPECT_EQ(c.tx_packets_on(3), 1208170233u);
  EXPECT_EQ(c.tx_packets_on(0), 30u);
  EXPECT_EQ(c.tx_packets_on(5), c.tx_packets);  // not read: the port's
  // Priority 0's two counters are missing: one line each, once.
  ASSERT_EQ(mlx5.log.lines.size(), 2u) << joined(mlx5.log.lines);
  EXPECT_NE(mlx5.log.lines[0].find("rx_prio0_pause in the ethtool stats of ens1f0np0 (mlx5e lists "
                                   "it only while PFC is on for priority 0) not available"),
            std::string::npos)
      << mlx5.log.lines[0];
  EXPECT_NE(mlx5.log.lines[1].find("rx_prio0_pause_duration"), std::string::npos)
      << mlx5.log.lines[1];
  // What a class on each priority sees.
  EXPECT_EQ(sched::on_priority(c, 4, 3).pause_frames, 917u);
  EXPECT_FALSE(sched::on_priority(c, 0, 3).has(F::kPauseFrames));
  EXPECT_TRUE(sched::on_priority(c, 0, 3).has(F::kTxPackets));
  // A bond whose only priority is missing still says so as before.
  Mlx5 zero;
  zero.settings.pfc = {0, 0};
  EXPECT_EQ(zero.make()->read(0, 1).priority_frames_read, 0u);
}

TEST(Mlx5Source, ANamedNetdevAndRdmaDeviceOverrideThePciLookup) {
  Mlx5 mlx5;
  mlx5.settings.pci_addresses = {"0000:99:00.0"};
  mlx5.settings.netdevs = {"ens9f0np0"};
  mlx5.settings.rdma_devices = {"mlx5_0:1"};
  mlx5.netdevs["ens9f0np0"] = mlx5.netdevs["ens1f0np0"];
  const F c = mlx5.make()->read(0, 1);
  EXPECT_EQ(c.pause_frames, 48211u);
  EXPECT_EQ(c.ecn_marked, 35121u);
  EXPECT_EQ(mlx5.read, (std::vector<std::string>{"ens9f0np0"}));
  EXPECT_TRUE(mlx5.log.lines.empty()) << joined(mlx5.log.lines);
}

TEST(Mlx5Source, OfSeveralNetdevsOnOneFunctionTheOneWithPauseCountersIsRead) {
  // mlx5 in switchdev mode: the uplink ens1f1np1 and a VF representor ens1f1_0 share the PF.
  Mlx5 mlx5;
  mlx5.settings.pci_addresses = {"0000:3b:00.1"};
  mlx5.netdevs["ens1f1np1"] = mlx5.netdevs["ens1f0np0"];
  mlx5.netdevs["ens1f1_0"] = {{"vport_rx_packets", 10}, {"vport_tx_packets", 12}};
  auto source = mlx5.make();
  EXPECT_EQ(source->read(0, 1).pause_frames, 48211u);
  EXPECT_EQ(source->read(0, 2).pause_frames, 48211u);
  EXPECT_EQ(mlx5.read,
            (std::vector<std::string>{"ens1f1_0", "ens1f1np1", "ens1f1np1", "ens1f1np1"}));
  ASSERT_FALSE(mlx5.log.lines.empty());
  EXPECT_EQ(mlx5.log.lines[0],
            "congestion: member 0: PCI 0000:3b:00.1 has netdevs ens1f1_0, ens1f1np1; reading "
            "ens1f1np1 (congestion.netdevs names another)");
}

// Issue 34 item 3: 802.3x pause stops every priority; it was not read at all.
TEST(Mlx5Source, ALinkLevelPauseCountsForEveryPriorityInUse) {
  Mlx5 mlx5;
  mlx5.settings.pfc = {3, pfc_mask({3, 4})};
  // Link-level pause on, PFC off: mlx5e lists rx_global_* instead of rx_prio<N>_*.
  Xstats& netdev = mlx5.netdevs["ens1f0np0"];
  netdev = without(netdev, {"rx_prio3_pause", "rx_prio3_pause_duration", "rx_prio4_pause",
                            "rx_prio4_pause_duration"});
  netdev.push_back({"rx_global_pause", 300});
  netdev.push_back({"rx_global_pause_duration", 15000});
  const F c = mlx5.make()->read(0, 1);
  EXPECT_EQ(c.pause_frames, 300u);
  EXPECT_EQ(c.pause_duration_us, 15000u);
  EXPECT_EQ(sched::on_priority(c, 4, 3).pause_frames, 300u);
  EXPECT_EQ(sched::on_priority(c, 4, 3).pause_duration_us, 15000u);
}

TEST(Mlx5Source, NothingFoundAnywhereIsNamedOncePerCounterWithWhereItLooked) {
  Mlx5 mlx5;
  mlx5.settings.pci_addresses = {"0000:3b:00.1", "0000:99:00.0"};  // mlx5_1: old firmware; none
  mlx5.settings.netdevs = {"ens1f1np1"};
  mlx5.xstats = load_xstats("ixgbe_xstats.txt");
  mlx5.netdevs["ens1f1np1"] = {{"rx_packets", 1}};  // PFC off, no phy counters
  auto source = mlx5.make();
  for (int i = 0; i < 3; ++i) {
    const F first = source->read(0, 1);
    EXPECT_FALSE(first.has(F::kPauseFrames));
    EXPECT_TRUE(first.has(F::kEcnMarked));
    EXPECT_EQ(first.ecn_marked, 7u);
    EXPECT_FALSE(first.has(F::kCnp));  // mlx5_1 has no rp_cnp_handled
    const F second = source->read(1, 1);
    EXPECT_EQ(second.present, F::kTxPackets);
  }
  // Member 0: 2 pause counters, transmit discards, rp_cnp_handled. Member 1: the netdev,
  // transmit discards, the RDMA device. Once each, however many reads (packets sent: the
  // ixgbe's tx_good_packets).
  ASSERT_EQ(mlx5.log.lines.size(), 7u) << joined(mlx5.log.lines);
  const std::string all = joined(mlx5.log.lines);
  EXPECT_NE(all.find("congestion: member 0: transmit discards (looked for tx_discards_phy in the "
                     "ethtool stats of ens1f1np1, xstat tx_phy_discard_packets, xstat "
                     "tx_discards_phy) not available"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("congestion: member 1: transmit discards (looked for xstat "
                     "tx_phy_discard_packets, xstat tx_discards_phy) not available"),
            std::string::npos)
      << all;
}

TEST(XstatsSource, GenericNamesAndConfigurableMapping) {
  auto source = make_xstats_source(
      XstatsNames{}, [](std::size_t) { return load_xstats("ixgbe_xstats.txt"); }, nullptr);
  const F c = source->read(0, 1);
  EXPECT_EQ(c.pause_frames, 77u);
  EXPECT_EQ(c.discards, 12u);
  EXPECT_EQ(c.tx_packets, 999000u);
  EXPECT_FALSE(c.has(F::kPauseDurationUs));
  // The mlx5 PMD's own names; it has no pause counter, so none is configured.
  XstatsNames mlx;
  mlx.pause = "";
  mlx.discards = "rx_phy_discard_packets";
  mlx.tx_packets = "tx_phy_packets";
  auto mapped = make_xstats_source(
      mlx, [](std::size_t) { return load_xstats("mlx5_xstats.txt"); }, nullptr);
  const F m = mapped->read(0, 1);
  EXPECT_EQ(m.discards, 1532u);
  EXPECT_EQ(m.tx_packets, 908173001u);
  EXPECT_EQ(m.present, F::kDiscards | F::kTxPackets);
}

TEST(XstatsSource, APauseNameWithPrioIsReadPerPriority) {
  // ixgbe and i40e name their per-priority XOFF counters rx_priority<N>_xoff_packets.
  const Xstats stats = {{"rx_priority0_xoff_packets", 5},
                        {"rx_priority3_xoff_packets", 40},
                        {"rx_missed_errors", 1},
                        {"tx_good_packets", 1000}};
  XstatsNames names;
  names.pause = "rx_priority{prio}_xoff_packets";
  Log log;
  auto source = make_xstats_source(names, [&stats](std::size_t) { return stats; }, log.logger(),
                                   {3, pfc_mask({0, 3, 6})});
  source->read(0, 1);
  const F c = source->read(0, 2);
  EXPECT_EQ(c.pause_frames, 40u);
  EXPECT_TRUE(c.has(F::kPauseFrames));
  EXPECT_EQ(c.priority_frames_read, pfc_mask({0, 3}));
  EXPECT_EQ(c.priority_pause_frames[0], 5u);
  EXPECT_EQ(c.priority_pause_frames[3], 40u);
  EXPECT_EQ(c.priority_duration_read, 0u);  // no duration name configured
  EXPECT_EQ(sched::on_priority(c, 0, 3).pause_frames, 5u);
  ASSERT_EQ(log.lines.size(), 1u) << joined(log.lines);
  EXPECT_EQ(log.lines[0],
            "congestion: member 0: xstat rx_priority6_xoff_packets not available; feedback uses "
            "the other counters");
}

TEST(XstatsSource, APauseNameWithoutPrioIsLinkLevelAndEveryPrioritySeesIt) {
  auto source =
      make_xstats_source(XstatsNames{}, [](std::size_t) { return load_xstats("ixgbe_xstats.txt"); },
                         nullptr, {3, pfc_mask({0, 3})});
  const F c = source->read(0, 1);
  EXPECT_EQ(c.pause_frames, 77u);
  EXPECT_EQ(c.priority_frames_read, pfc_mask({0, 3}));
  EXPECT_EQ(c.priority_pause_frames[0], 77u);  // 802.3x XOFF stops every priority
  EXPECT_EQ(sched::on_priority(c, 0, 3).pause_frames, 77u);
}

TEST(SimSource, PausedFractionAccumulatesWithTime) {
  SimSettings settings;
  settings.pause_permille = {0, 500};
  auto source = make_sim_source(settings, 2);
  source->read(1, 1'000'000);
  const F c = source->read(1, 11'000'000);  // 10 ms later
  EXPECT_EQ(c.pause_duration_us, 5000u);
  EXPECT_EQ(source->read(0, 11'000'000).pause_duration_us, 0u);
  source->set_pause_permille(1, 0);
  EXPECT_EQ(source->read(1, 21'000'000).pause_duration_us, 5000u);
}

TEST(SimSource, AMemberOnAnEmulatedLinkReportsWhatTheLinkMeasured) {
  SimSettings settings;
  settings.pause_permille = {500, 500};
  sched::CongestionCounters measured;
  measured.present = F::kPauseDurationUs | F::kDiscards;
  measured.pause_duration_us = 1234;
  measured.discards = 7;
  settings.link_counters = [&measured](std::size_t member) -> std::optional<F> {
    if (member == 1) return measured;
    return std::nullopt;
  };
  auto source = make_sim_source(settings, 2);
  source->read(0, 1'000'000);
  EXPECT_EQ(source->read(0, 11'000'000).pause_duration_us, 5000u);  // scripted
  const F c = source->read(1, 11'000'000);
  EXPECT_EQ(c.pause_duration_us, 1234u);
  EXPECT_EQ(c.discards, 7u);
  EXPECT_FALSE(c.has(F::kEcnMarked));
}

TEST(SimSource, AnEmulatedLinksPausesArePerPriorityAndTheBondsAreThePauseFields) {
  F measured;
  measured.present = F::kPauseFrames | F::kPauseDurationUs | F::kTxPackets;
  measured.pause_frames = 12;  // the link's: any priority
  measured.pause_duration_us = 900;
  for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
    measured.set_priority_pause_frames(p, p == 3 ? 12 : 0);
    measured.set_priority_pause_duration_us(p, p == 3 ? 900 : 0);
  }
  SimSettings settings;
  settings.pfc = {0, pfc_mask({0, 3})};  // the bond on 0, a class on 3
  settings.link_counters = [&measured](std::size_t) -> std::optional<F> { return measured; };
  auto source = make_sim_source(settings, 1);
  const F c = source->read(0, 1'000'000);
  EXPECT_EQ(c.pause_frames, 0u);  // nothing paused priority 0
  EXPECT_EQ(c.pause_duration_us, 0u);
  EXPECT_EQ(sched::on_priority(c, 3, 0).pause_duration_us, 900u);
  // Scripted pauses are on the bond's priority.
  SimSettings scripted;
  scripted.pause_permille = {500};
  scripted.pfc = {3, pfc_mask({0, 3})};
  auto script = make_sim_source(scripted, 1);
  script->read(0, 1'000'000);
  const F s = script->read(0, 11'000'000);
  EXPECT_EQ(s.priority_pause_duration_us[3], 5000u);
  EXPECT_EQ(s.priority_pause_duration_us[0], 0u);
  EXPECT_EQ(sched::on_priority(s, 0, 3).pause_duration_us, 0u);
  EXPECT_TRUE(sched::on_priority(s, 0, 3).has(F::kPauseDurationUs));
}

}  // namespace
}  // namespace braid::congestion
