#include "engine/placement.hpp"

#include <gtest/gtest.h>

namespace braid::engine {
namespace {

TEST(Placement, QueuesStayOnTheirSocketAndBalance) {
  const std::vector<PlacementPort> ports = {{"a", 0, 4}, {"b", 1, 4}};
  const std::vector<PlacementWorker> workers = {{1, 0}, {2, 0}, {3, 1}, {4, 1}};
  const Placement placement = place(ports, workers);
  EXPECT_TRUE(placement.warnings.empty());
  // Port a (socket 0) goes to lcores 1 and 2, two queues each; port b to lcores 3 and 4.
  EXPECT_EQ(placement.per_worker[0], (std::vector<RxQueueRef>{{0, 0}, {0, 2}}));
  EXPECT_EQ(placement.per_worker[1], (std::vector<RxQueueRef>{{0, 1}, {0, 3}}));
  EXPECT_EQ(placement.per_worker[2], (std::vector<RxQueueRef>{{1, 0}, {1, 2}}));
  EXPECT_EQ(placement.per_worker[3], (std::vector<RxQueueRef>{{1, 1}, {1, 3}}));
}

// config/dual-socket-2x2x100g.yaml: a host port and a bond of two on each socket, two RX
// queues each, workers 2, 4, 6 on socket 0 and 1, 3, 5 on socket 1: every queue is polled on its
// own socket, and every worker has queues.
TEST(Placement, TheDualSocketGatewayPollsEveryQueueOnItsOwnSocket) {
  const std::vector<PlacementPort> ports = {{"host0", 0, 2}, {"s0-a", 0, 2}, {"s0-b", 0, 2},
                                            {"host1", 1, 2}, {"s1-a", 1, 2}, {"s1-b", 1, 2}};
  const std::vector<PlacementWorker> workers = {{2, 0}, {4, 0}, {6, 0}, {1, 1}, {3, 1}, {5, 1}};
  const Placement placement = place(ports, workers);
  EXPECT_TRUE(placement.warnings.empty());
  std::size_t polled = 0;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    EXPECT_EQ(placement.per_worker[w].size(), 2u) << "lcore " << workers[w].lcore;
    for (const RxQueueRef& ref : placement.per_worker[w]) {
      EXPECT_EQ(ports[ref.port].socket, workers[w].socket)
          << ports[ref.port].name << "/" << ref.queue << " on lcore " << workers[w].lcore;
      ++polled;
    }
  }
  EXPECT_EQ(polled, 12u);
  const std::string report = format_placement(ports, workers, placement);
  EXPECT_NE(
      report.find("worker lcore 1 (socket 1): polls host1/rxq0(socket 1) s1-a/rxq1(socket 1)"),
      std::string::npos)
      << report;
  EXPECT_EQ(report.find("warning"), std::string::npos) << report;
}

TEST(Placement, EveryQueueIsPolledExactlyOnce) {
  const std::vector<PlacementPort> ports = {{"a", 0, 3}, {"b", kAnySocket, 5}, {"c", 0, 1}};
  const std::vector<PlacementWorker> workers = {{1, 0}, {2, 0}, {5, 0}};
  const Placement placement = place(ports, workers);
  std::vector<int> seen(3 * 8, 0);
  std::size_t most = 0, least = SIZE_MAX;
  for (const auto& list : placement.per_worker) {
    most = std::max(most, list.size());
    least = std::min(least, list.size());
    for (const RxQueueRef& ref : list)
      ++seen[ref.port * 8 + ref.queue];
  }
  for (std::size_t port = 0; port < ports.size(); ++port) {
    for (std::uint16_t q = 0; q < 8; ++q)
      EXPECT_EQ(seen[port * 8 + q], q < ports[port].rx_queues ? 1 : 0);
  }
  EXPECT_LE(most - least, 1u);  // 9 queues over 3 workers: 3 each
}

TEST(Placement, WarnsWhenAPortsSocketHasNoWorker) {
  const std::vector<PlacementPort> ports = {{"far", 1, 2}};
  const std::vector<PlacementWorker> workers = {{1, 0}};
  const Placement placement = place(ports, workers);
  ASSERT_EQ(placement.warnings.size(), 1u);
  EXPECT_NE(placement.warnings[0].find("port far is on socket 1 but no worker lcore is"),
            std::string::npos);
  EXPECT_EQ(placement.per_worker[0].size(), 2u);  // still polled, across sockets
  const std::string report = format_placement(ports, workers, placement);
  EXPECT_NE(report.find("worker lcore 1 (socket 0): polls far/rxq0(socket 1) far/rxq1(socket 1)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("warning: port far"), std::string::npos);
}

TEST(Placement, WarnsAboutIdleWorkers) {
  const Placement placement = place({{"a", 0, 1}}, {{1, 0}, {2, 0}});
  ASSERT_EQ(placement.warnings.size(), 1u);
  EXPECT_NE(placement.warnings[0].find("worker lcore 2 has no RX queue"), std::string::npos);
}

}  // namespace
}  // namespace braid::engine
