#include "congestion/source.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
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

struct Log {
  std::vector<std::string> lines;
  Logger logger() {
    return [this](const std::string& line) { lines.push_back(line); };
  }
};

TEST(Mlx5Source, ReadsRealXstatsNamesAndSysfsHwCounters) {
  Log log;
  Mlx5Settings settings;
  settings.sysfs_root = kFixtures + "/infiniband";
  settings.pci_addresses = {"0000:3b:00.0"};  // found through mlx5_0/device
  auto source = make_mlx5_source(
      settings, [](std::size_t) { return load_xstats("mlx5_xstats.txt"); }, log.logger());
  const F c = source->read(0, 1);
  EXPECT_EQ(c.pause_frames, 48211u);
  EXPECT_EQ(c.pause_duration_us, 2410550u);
  EXPECT_EQ(c.discards, 1532u);
  EXPECT_EQ(c.tx_packets, 908173001u);
  EXPECT_EQ(c.ecn_marked, 35121u);
  EXPECT_EQ(c.cnp, 8042u);
  EXPECT_EQ(c.present, F::kPauseFrames | F::kPauseDurationUs | F::kDiscards | F::kTxPackets |
                           F::kEcnMarked | F::kCnp);
  EXPECT_TRUE(log.lines.empty()) << log.lines.front();
}

TEST(Mlx5Source, OtherPriorityAndExplicitDevice) {
  Mlx5Settings settings;
  settings.priority = 0;
  settings.sysfs_root = kFixtures + "/infiniband";
  settings.rdma_devices = {"mlx5_0:1"};
  auto source = make_mlx5_source(
      settings, [](std::size_t) { return load_xstats("mlx5_xstats.txt"); }, nullptr);
  const F c = source->read(0, 1);
  EXPECT_EQ(c.pause_frames, 0u);
  EXPECT_TRUE(c.has(F::kPauseFrames));
  EXPECT_EQ(c.ecn_marked, 35121u);
}

TEST(Mlx5Source, MissingCountersAreLeftOutAndLoggedOnce) {
  Log log;
  Mlx5Settings settings;
  settings.sysfs_root = kFixtures + "/infiniband";
  settings.pci_addresses = {"0000:3b:00.1", "0000:99:00.0"};  // mlx5_1: old firmware; none
  auto source = make_mlx5_source(
      settings, [](std::size_t) { return load_xstats("ixgbe_xstats.txt"); }, log.logger());
  for (int i = 0; i < 3; ++i) {
    const F first = source->read(0, 1);
    EXPECT_FALSE(first.has(F::kPauseFrames));
    EXPECT_TRUE(first.has(F::kEcnMarked));
    EXPECT_EQ(first.ecn_marked, 7u);
    EXPECT_FALSE(first.has(F::kCnp));  // mlx5_1 has no rp_cnp_handled
    const F second = source->read(1, 1);
    EXPECT_EQ(second.present, 0u);
  }
  // Member 0: 4 xstats + rp_cnp_handled; member 1: 4 xstats + the RDMA device. Once each.
  EXPECT_EQ(log.lines.size(), 10u);
  for (const std::string& line : log.lines)
    EXPECT_NE(line.find("not available"), std::string::npos) << line;
}

TEST(XstatsSource, GenericNamesAndConfigurableMapping) {
  auto source = make_xstats_source(
      XstatsNames{}, [](std::size_t) { return load_xstats("ixgbe_xstats.txt"); }, nullptr);
  const F c = source->read(0, 1);
  EXPECT_EQ(c.pause_frames, 77u);
  EXPECT_EQ(c.discards, 12u);
  EXPECT_EQ(c.tx_packets, 999000u);
  EXPECT_FALSE(c.has(F::kPauseDurationUs));
  XstatsNames mlx;
  mlx.pause = "rx_prio3_pause";
  mlx.pause_duration = "rx_prio3_pause_duration";
  mlx.discards = "rx_discards_phy";
  auto mapped = make_xstats_source(
      mlx, [](std::size_t) { return load_xstats("mlx5_xstats.txt"); }, nullptr);
  EXPECT_EQ(mapped->read(0, 1).pause_duration_us, 2410550u);
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

}  // namespace
}  // namespace braid::congestion
