#include <gtest/gtest.h>

#include "common/periodic_tasks.hpp"
#include "engine/mempool_sizing.hpp"
#include "engine/stats_line.hpp"

namespace braid::engine {
namespace {

TEST(MempoolSizing, CoversEveryPlaceAnMbufCanWait) {
  MempoolDemand demand;
  demand.rx_descriptors = 2 * 1024;
  demand.tx_descriptors = 2 * 1024;
  demand.pmd_held = 4096;
  demand.lcores = 2;
  demand.egress_ports = 2;
  demand.burst = 32;
  demand.bucket_holds = 2048;
  const std::uint64_t floor =
      2048 + 2048 + 4096 + 2048 + 2 * 32 * 3 + 2 * kMempoolCacheSize * 3 / 2;
  EXPECT_GE(mbufs_needed(demand), floor);
  EXPECT_LE(mbufs_needed(demand), floor * 2);
}

config::PortConfig port_config(std::string name, std::string device) {
  config::PortConfig port;
  port.name = std::move(name);
  port.device = std::move(device);
  return port;
}

config::BondConfig bond_config(std::string name, std::vector<std::string> members) {
  config::BondConfig bond;
  bond.name = std::move(name);
  bond.members = std::move(members);
  return bond;
}

PortStatsView port(std::string name, std::uint16_t port_id) {
  PortStatsView view;
  view.name = std::move(name);
  view.port_id = port_id;
  return view;
}

TEST(StatsLine, ShowsRatesPerPortAndOnlyActiveDrops) {
  datapath::CounterTotals before, now;
  now.rx_packets[0] = 2'000'000;
  now.tx_packets[1] = 1'999'000;
  now.drops[static_cast<std::size_t>(datapath::DropReason::kTxFull)] = 1000;
  const std::string line =
      format_stats_line(2.0, 1.0, now, before, {port("wire", 0), port("sink", 1)});
  EXPECT_EQ(line,
            "[    2.0s] offered 2.00Mpps delivered 2.00Mpps dropped 1.0kpps\n"
            "  ports rx/tx: wire 2.00M/0 sink 0/2.00M\n"
            "  drops: tx_full 1.0k/s");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The demo (config/demo.yaml): wire -> bond uplink (m0..m3) -> in-process cables -> bond switch
// (p0..p3) -> sink. Each packet is received twice (wire, then a p port), but offered once.
TEST(StatsLine, TheDemoFitsATerminalAndCountsTheOfferedLoadOnce) {
  config::Config config;
  config.ports.push_back(port_config("wire", "net_pcap_demo0,rx_pcap=x"));
  std::vector<PortStatsView> ports = {port("wire", 0)};
  for (std::uint16_t m = 0; m < 4; ++m) {
    const std::string cable = "cable:demo" + std::to_string(m);
    config.ports.push_back(port_config("m" + std::to_string(m), cable + "/a"));
    config.ports.push_back(port_config("p" + std::to_string(m), cable + "/b"));
    ports.push_back(port("m" + std::to_string(m), static_cast<std::uint16_t>(1 + m)));
    ports.push_back(port("p" + std::to_string(m), static_cast<std::uint16_t>(5 + m)));
  }
  config.ports.push_back(port_config("sink", "net_null_demo0,no-rx=1"));
  ports.push_back(port("sink", 9));
  config.bonds.push_back(bond_config("uplink", {"m0", "m1", "m2", "m3"}));
  config.bonds.push_back(bond_config("switch", {"p0", "p1", "p2", "p3"}));
  describe_ports(config, ports);
  EXPECT_EQ(ports[1].bond, "uplink");
  EXPECT_TRUE(ports[1].looped);
  EXPECT_FALSE(ports[0].looped);

  datapath::CounterTotals before, now;
  now.rx_packets[0] = 1'520'000;  // wire: the offered load
  for (std::uint16_t m = 0; m < 4; ++m) {
    now.tx_packets[1 + m] = 380'000;  // uplink's members send it over the cables
    now.rx_packets[5 + m] = 380'000;  // switch's members receive it again
  }
  now.tx_packets[9] = 1'520'000;  // sink
  const std::string text = format_stats_line(12345.6, 1.0, now, before, ports);
  EXPECT_EQ(text,
            "[12345.6s] offered 1.52Mpps delivered 1.52Mpps dropped 0pps\n"
            "  uplink rx 0 tx 1.52M, rx/tx: m0 0/380.0k m1 0/380.0k m2 0/380.0k m3 0/380.0k\n"
            "  switch rx 1.52M tx 0, rx/tx: p0 380.0k/0 p1 380.0k/0 p2 380.0k/0 p3 380.0k/0\n"
            "  ports rx/tx: wire 1.52M/0 sink 0/1.52M");
  for (const std::string& line : lines_of(text))
    EXPECT_LE(line.size(), kStatsLineColumns) << line;
}

TEST(StatsLine, ABondOfManyMembersWrapsItsLine) {
  config::Config config;
  config::BondConfig bond = bond_config("uplink", {});
  std::vector<PortStatsView> ports;
  datapath::CounterTotals before, now;
  for (std::uint16_t m = 0; m < 16; ++m) {
    bond.members.push_back("member" + std::to_string(m));
    ports.push_back(port(bond.members.back(), m));
    now.rx_packets[m] = 123'456'789;
    now.tx_packets[m] = 987'654'321;
  }
  config.bonds.push_back(bond);
  describe_ports(config, ports);
  const std::vector<std::string> lines = lines_of(format_stats_line(1.0, 1.0, now, before, ports));
  EXPECT_GT(lines.size(), 3u);
  for (const std::string& line : lines)
    EXPECT_LE(line.size(), kStatsLineColumns) << line;
  EXPECT_EQ(lines[0], "[    1.0s] offered 1.98Gpps delivered 15.80Gpps dropped 0pps");
}

TEST(StatsLine, FinalReportChecksTheAccountingIdentity) {
  datapath::CounterTotals totals;
  totals.rx_packets[0] = 10;
  totals.tx_packets[1] = 7;
  totals.drops[0] = 2;
  totals.buffered = 1;
  EXPECT_NE(format_final_report(totals, {port("a", 0), port("b", 1)}).find("balanced"),
            std::string::npos);
  totals.buffered = 0;
  EXPECT_NE(format_final_report(totals, {port("a", 0), port("b", 1)}).find("MISMATCH"),
            std::string::npos);
}

TEST(PeriodicTasks, RunsJobsOnTheirCadence) {
  PeriodicTasks tasks;
  std::vector<std::uint64_t> fast, slow;
  tasks.add("fast", 10, 0, [&](std::uint64_t now) { fast.push_back(now); });
  tasks.add("slow", 25, 0, [&](std::uint64_t now) { slow.push_back(now); });
  std::uint64_t next = 0;
  for (std::uint64_t now = 0; now <= 50; now = next)
    next = tasks.run_due(now);
  EXPECT_EQ(fast, (std::vector<std::uint64_t>{10, 20, 30, 40, 50}));
  EXPECT_EQ(slow, (std::vector<std::uint64_t>{25, 50}));
}

TEST(PeriodicTasks, ALateJobRunsOnceAndKeepsItsCadence) {
  PeriodicTasks tasks;
  int runs = 0;
  tasks.add("job", 10, 0, [&](std::uint64_t) { ++runs; });
  EXPECT_EQ(tasks.run_due(95), 105u);
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace braid::engine
