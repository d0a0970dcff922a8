// The mlx5 and RoCE member health sources (drivers/health): the ethtool part against fixture
// stats with mlx5e's names and against a real veth's ethtool stats (names configured to veth's
// own), the sysfs part against a real directory tree made for the test.
#include <gtest/gtest.h>
#include <net/if.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../congestion/veth_pair.hpp"
#include "congestion/ethtool_stats.hpp"
#include "drivers/health/mlx5_health_source.hpp"
#include "drivers/health/roce_health_source.hpp"

namespace braid::health {
bool operator==(const CounterSample& a, const CounterSample& b) {
  return a.errors == b.errors && a.frames == b.frames;
}
}  // namespace braid::health

namespace braid::drivers {
namespace {

namespace fs = std::filesystem;
using health::CounterSample;
using health::Signal;

std::optional<CounterSample> at(const health::CounterSnapshot& snapshot, Signal signal) {
  return snapshot[static_cast<std::size_t>(signal)];
}
congestion::EthtoolReader fixture(congestion::Xstats stats) {
  return [stats](const std::string&) { return congestion::EthtoolStats{stats, ""}; };
}

TEST(Mlx5HealthSource, ReadsThePhyCountersOfTheNetdev) {
  std::vector<std::string> log;
  Mlx5HealthSource source("ens1f0np0",
                          fixture({{"rx_packets_phy", 1'000'000},
                                   {"rx_crc_errors_phy", 20},
                                   {"rx_symbol_err_phy", 7},
                                   {"rx_err_lane_0_phy", 3},
                                   {"rx_err_lane_1_phy", 4},
                                   {"rx_discards_phy", 500}}),
                          [&](const std::string& line) { log.push_back(line); });
  health::CounterSnapshot snapshot{};
  snapshot[static_cast<std::size_t>(Signal::kRxErrors)] = CounterSample{1, 2};  // the ethdev's
  source.read(snapshot);
  EXPECT_EQ(at(snapshot, Signal::kCrc), (CounterSample{20, 1'000'020}));
  EXPECT_EQ(at(snapshot, Signal::kSymbol), (CounterSample{7, 1'000'020}));
  EXPECT_EQ(at(snapshot, Signal::kFecCorrected), (CounterSample{7, 1'000'020}))
      << "no rx_corrected_bits_phy: the lanes' sum";
  EXPECT_EQ(at(snapshot, Signal::kDiscards), (CounterSample{500, 1'000'000}));
  EXPECT_EQ(at(snapshot, Signal::kRxErrors), (CounterSample{1, 2})) << "left as it was";
  EXPECT_TRUE(log.empty());
}

TEST(Mlx5HealthSource, AMissingCounterIsLoggedOnceAndItsSignalStaysAsItWas) {
  std::vector<std::string> log;
  Mlx5HealthSource source("ens1f0np0",
                          fixture({{"rx_packets_phy", 10}, {"rx_corrected_bits_phy", 5}}),
                          [&](const std::string& line) { log.push_back(line); });
  for (int i = 0; i < 3; ++i) {
    health::CounterSnapshot snapshot{};
    source.read(snapshot);
    EXPECT_FALSE(at(snapshot, Signal::kCrc));
    EXPECT_FALSE(at(snapshot, Signal::kSymbol));
    EXPECT_FALSE(at(snapshot, Signal::kDiscards));
    EXPECT_EQ(at(snapshot, Signal::kFecCorrected), (CounterSample{5, 10}));
  }
  EXPECT_EQ(log, (std::vector<std::string>{
                     "mlx5 health: no rx_crc_errors_phy in the ethtool stats of ens1f0np0 (its "
                     "signal stays with the ethdev counters)",
                     "mlx5 health: no rx_symbol_err_phy in the ethtool stats of ens1f0np0 (its "
                     "signal stays with the ethdev counters)",
                     "mlx5 health: no rx_discards_phy in the ethtool stats of ens1f0np0 (its "
                     "signal stays with the ethdev counters)"}));
}

TEST(Mlx5HealthSource, ReadsARealVethsEthtoolStatsThroughTheIoctl) {
  const std::string pid = std::to_string(::getpid());
  test::VethPair veth("brh" + pid + "a", "brh" + pid + "b");
  if (const auto why = veth.create()) GTEST_SKIP() << *why;
  // veth has no PHY counters; its own names stand in for them (drivers/net/veth.c): the peer's
  // ifindex is a known non-zero value, the queue counters are 0 on a link nothing uses.
  Mlx5HealthNames names;
  names.packets = "peer_ifindex";
  names.crc = "rx_queue_0_drops";
  names.symbol = "rx_queue_0_xdp_drops";
  names.corrected_bits = "rx_queue_0_xdp_tx_errors";
  names.discards = "tx_queue_0_xdp_xmit_errors";
  std::vector<std::string> log;
  Mlx5HealthSource source(
      veth.name(), congestion::read_ethtool_stats,
      [&](const std::string& line) { log.push_back(line); }, names);
  health::CounterSnapshot snapshot{};
  source.read(snapshot);
  EXPECT_TRUE(log.empty()) << log.front();
  const std::uint64_t peer = ::if_nametoindex(veth.peer().c_str());
  EXPECT_EQ(at(snapshot, Signal::kCrc), (CounterSample{0, peer}));
  EXPECT_EQ(at(snapshot, Signal::kSymbol), (CounterSample{0, peer}));
  EXPECT_EQ(at(snapshot, Signal::kFecCorrected), (CounterSample{0, peer}));
  EXPECT_EQ(at(snapshot, Signal::kDiscards), (CounterSample{0, peer}));
  // The shipped mlx5 names on a veth: none there, one line each, every signal absent.
  std::vector<std::string> mlx5_log;
  Mlx5HealthSource mlx5(veth.name(), congestion::read_ethtool_stats,
                        [&](const std::string& line) { mlx5_log.push_back(line); });
  health::CounterSnapshot none{};
  mlx5.read(none);
  for (const auto& sample : none)
    EXPECT_FALSE(sample.has_value());
  ASSERT_EQ(mlx5_log.size(), 1u) << "no rx_packets_phy: nothing else is looked up";
  EXPECT_NE(mlx5_log[0].find("no rx_packets_phy in the ethtool stats of " + veth.name()),
            std::string::npos)
      << mlx5_log[0];
}

TEST(Mlx5HealthSource, ANetdevThatCannotBeReadIsOneLine) {
  std::vector<std::string> log;
  Mlx5HealthSource source("brh" + std::to_string(::getpid()) + "x", congestion::read_ethtool_stats,
                          [&](const std::string& line) { log.push_back(line); });
  health::CounterSnapshot snapshot{};
  source.read(snapshot);
  source.read(snapshot);
  for (const auto& sample : snapshot)
    EXPECT_FALSE(sample.has_value());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("no netdev of that name"), std::string::npos) << log[0];
}

// A hw_counters tree like mlx5_ib's, made for the test and removed after.
class RdmaTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("braid-roce-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "mlx5_1/ports/2/hw_counters");
    fs::create_directories(root_ / "mlx5_1/ports/2/counters");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, std::uint64_t value) {
    std::ofstream(root_ / "mlx5_1/ports/2" / path) << value << "\n";
  }
  fs::path root_;
};

TEST_F(RdmaTree, SumsTheRetransmissionCountersOverThePacketsSent) {
  write("hw_counters/out_of_sequence", 3);
  write("hw_counters/packet_seq_err", 4);
  write("hw_counters/local_ack_timeout_err", 5);
  write("counters/port_xmit_packets", 100000);
  std::vector<std::string> log;
  RoceHealthSource source(root_.string(), "mlx5_1:2",
                          [&](const std::string& line) { log.push_back(line); });
  EXPECT_EQ(source.read(), (CounterSample{12, 100000}));
  write("hw_counters/local_ack_timeout_err", 9);
  write("counters/port_xmit_packets", 200000);
  EXPECT_EQ(source.read(), (CounterSample{16, 200000}));
  EXPECT_TRUE(log.empty());
}

TEST_F(RdmaTree, AMissingCounterIsLoggedOnceAndLeftOutAndWithNoneTheSignalIsAbsent) {
  write("hw_counters/out_of_sequence", 3);
  write("counters/port_xmit_packets", 1000);
  std::vector<std::string> log;
  RoceHealthSource source(root_.string(), "mlx5_1:2",
                          [&](const std::string& line) { log.push_back(line); });
  EXPECT_EQ(source.read(), (CounterSample{3, 1000}));
  EXPECT_EQ(source.read(), (CounterSample{3, 1000}));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "roce health: cannot read " + (root_ / "mlx5_1/ports/2").string() +
                        "/hw_counters/packet_seq_err (left out of roce_retransmit)");
  // Port 1 (the default) does not exist: absent.
  RoceHealthSource missing(root_.string(), "mlx5_1", [](const std::string&) {});
  EXPECT_FALSE(missing.read().has_value());
}

}  // namespace
}  // namespace braid::drivers
