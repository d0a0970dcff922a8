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

TEST(StatsLine, ShowsRatesPerPortAndOnlyActiveDrops) {
  CounterTotals before, now;
  now.rx_packets[0] = 2'000'000;
  now.tx_packets[1] = 1'999'000;
  now.drops[static_cast<std::size_t>(DropReason::kTxFull)] = 1000;
  const std::string line =
      format_stats_line(2.0, 1.0, now, before, {{"wire", 0, {}}, {"sink", 1, {}}});
  EXPECT_EQ(line,
            "[    2.0s] rx 2.00Mpps tx 2.00Mpps drop 1.0kpps | wire rx 2.00M tx 0 | sink rx 0 tx "
            "2.00M | tx_full 1.0k/s");
}

TEST(StatsLine, FinalReportChecksTheAccountingIdentity) {
  CounterTotals totals;
  totals.rx_packets[0] = 10;
  totals.tx_packets[1] = 7;
  totals.drops[0] = 2;
  totals.buffered = 1;
  EXPECT_NE(format_final_report(totals, {{"a", 0, {}}, {"b", 1, {}}}).find("balanced"),
            std::string::npos);
  totals.buffered = 0;
  EXPECT_NE(format_final_report(totals, {{"a", 0, {}}, {"b", 1, {}}}).find("MISMATCH"),
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
