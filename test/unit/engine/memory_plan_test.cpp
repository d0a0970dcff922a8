#include "engine/memory_plan.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/config_loader.hpp"
#include "engine/host_sockets.hpp"
#include "engine/placement.hpp"
#include "engine/port_queues.hpp"

namespace braid::engine {
namespace {

// Two jumbo member ports on socket 1 bonded and cross-connected to a host port on socket 0;
// two workers; the main lcore on socket 0.
constexpr const char* kTwoSockets = R"(
ports:
  - {name: host, device: "0000:3b:00.0", rx_queues: 2, rx_descriptors: 2048, tx_descriptors: 1024}
  - {name: a, device: "0000:af:00.0", rx_queues: 2, mtu: 9000}
  - {name: b, device: "0000:af:00.1", rx_queues: 2, mtu: 9000}
bonds:
  - {name: up, members: [a, b], buckets: 1024}
workers:
  lcores: [1, 2]
cross_connect:
  - [host, up]
)";

TEST(MemoryPlan, EachSocketGetsThePoolItsOwnPortsNeed) {
  const config::Config config = config::parse_config(kTwoSockets, "test.yaml");
  const MemoryPlan plan = plan_memory(config, {0, 1, 1}, 0);
  ASSERT_EQ(plan.sockets.size(), 2u);
  const SocketMemory& host = plan.sockets[0];
  const SocketMemory& members = plan.sockets[1];
  EXPECT_EQ(host.socket, 0);
  EXPECT_EQ(members.socket, 1);
  // The host port: 2 data RX queues of 2048. Its socket's pool also covers the members' data
  // TX rings (2 members x 2 worker queues of 1024): they carry what the host port received.
  const PortQueues member_queues = plan_port_queues(config.ports[1], &config.bonds[0], 2);
  EXPECT_EQ(host.demand.rx_descriptors, 2u * 2048);
  EXPECT_EQ(host.demand.tx_descriptors, 2u * (member_queues.tx_queues - 1) * 1024);
  EXPECT_EQ(host.mbufs, mbufs_needed(host.demand));
  EXPECT_EQ(host.data_room, kMbufDefaultDataRoom);
  // The members: their slow RX queues count, and the jumbo data room; their pool covers the
  // host port's 2 TX queues of 1024 (what the members received leaves there).
  EXPECT_EQ(members.demand.rx_descriptors, 2 * member_queues.rx_descriptors(1024));
  EXPECT_EQ(members.demand.tx_descriptors, 2u * 1024);
  EXPECT_EQ(members.data_room, 9000u + kFrameOverhead + kMbufHeadroom);
  EXPECT_EQ(members.mempool_bytes, mempool_bytes(members.mbufs, members.data_room));
  // Held packets may come from either socket's ports: both pools cover them.
  EXPECT_EQ(host.demand.bucket_holds, members.demand.bucket_holds);
  // The control pool and the bond's slow ring live on the main socket only.
  EXPECT_GT(host.control_bytes, 0u);
  EXPECT_EQ(members.control_bytes, 0u);
  EXPECT_EQ(plan.control_mbufs,
            kControlPoolSpare + 2 * (kControlTxDescriptors + kControlFramesInFlightPerMember));
  EXPECT_EQ(plan.bond_table_bytes, 1024u * 2 * 2);
}

// Issue 33 item 10: a port's TX rings hold mbufs of the ports it forwards from. Asymmetric
// queues: the host port (socket 0) has 4096-slot TX rings, the members (socket 1) 512-slot ones,
// three workers. Socket 1's pool must cover the host port's TX rings (filled with members'
// mbufs), socket 0's the members'.
TEST(MemoryPlan, TxDescriptorsAreChargedToThePoolsOfTheirSources) {
  const config::Config config = config::parse_config(R"(
ports:
  - {name: host, device: "0000:3b:00.0", rx_queues: 3, tx_descriptors: 4096}
  - {name: a, device: "0000:af:00.0", rx_queues: 3, tx_descriptors: 512}
  - {name: b, device: "0000:af:00.1", rx_queues: 3, tx_descriptors: 512}
bonds:
  - {name: up, members: [a, b]}
workers:
  lcores: [1, 2, 3]
cross_connect:
  - [host, up]
)",
                                                     "test.yaml");
  const MemoryPlan plan = plan_memory(config, {0, 1, 1}, 0);
  ASSERT_EQ(plan.sockets.size(), 2u);
  EXPECT_EQ(plan.sockets[1].demand.tx_descriptors, 3u * 4096) << "the host port's 3 TX rings";
  EXPECT_EQ(plan.sockets[0].demand.tx_descriptors, 2u * 3 * 512) << "the members' data TX rings";
  // The rings' own memory stays with their ports.
  const std::uint64_t member_rx = 2 * plan_port_queues(config.ports[1], &config.bonds[0], 3)
                                          .rx_descriptors(config.ports[1].rx_descriptors);
  EXPECT_EQ(plan.sockets[0].descriptor_bytes,
            (3u * config.ports[0].rx_descriptors + 3u * 4096) * kDescriptorBytes);
  EXPECT_EQ(plan.sockets[1].demand.rx_descriptors, member_rx);
  EXPECT_EQ(plan.sockets[1].mbufs, mbufs_needed(plan.sockets[1].demand));
}

TEST(MemoryPlan, PortsWithoutAffinityAndAMainSocketWithoutPortsCountOnce) {
  const config::Config config = config::parse_config(kTwoSockets, "test.yaml");
  // Every port without affinity: all on the main socket, one pool.
  const MemoryPlan one = plan_memory(config, {kAnySocket, kAnySocket, kAnySocket}, 1);
  ASSERT_EQ(one.sockets.size(), 1u);
  EXPECT_EQ(one.sockets[0].socket, 1);
  EXPECT_GT(one.sockets[0].mbufs, 0u);
  // Ports on socket 1, main lcore on socket 0: socket 0 holds only the control pool.
  const MemoryPlan split = plan_memory(config, {1, 1, 1}, 0);
  ASSERT_EQ(split.sockets.size(), 2u);
  EXPECT_EQ(split.sockets[0].mbufs, 0u);
  EXPECT_EQ(split.sockets[0].total_bytes(), split.sockets[0].control_bytes);
  EXPECT_EQ(split.sockets[1].mbufs, one.sockets[0].mbufs);
}

TEST(MemoryPlan, APoolIsItsObjectsAndAPowerOfTwoRingOfPointers) {
  EXPECT_EQ(mempool_bytes(1023, 2176), 1023u * (2176 + 256) + 1024u * 8);
  EXPECT_EQ(mempool_bytes(1024, 2176), 1024u * (2176 + 256) + 2048u * 8);
  EXPECT_EQ(data_room_for_mtu(1500), kMbufDefaultDataRoom);
  EXPECT_EQ(data_room_for_mtu(9000), 9000u + 26 + 128);
}

TEST(HostSockets, PciDevicesReadTheirNumaNodeAndTheRestHaveNone) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("braid-sysfs-" + std::to_string(::getpid()));
  const auto write = [&](const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  };
  write("bus/pci/devices/0000:3b:00.0/numa_node", "0\n");
  write("bus/pci/devices/0000:af:00.0/numa_node", "1\n");
  write("bus/pci/devices/0000:af:00.1/numa_node", "-1\n");
  std::filesystem::create_directories(root / "devices/system/node/node1/cpu7");
  config::Config config = config::parse_config(kTwoSockets, "test.yaml");
  config.ports[0].device = "3b:00.0";  // the short form names the same device
  config.ports.push_back(config.ports[0]);
  config.ports.back().device = "net_ring0";
  EXPECT_EQ(port_sockets_from_sysfs(config, root.string()),
            (std::vector<int>{0, 1, kAnySocket, kAnySocket}));
  EXPECT_EQ(cpu_socket_from_sysfs(7, root.string()), 1);
  EXPECT_EQ(cpu_socket_from_sysfs(3, root.string()), 0);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace braid::engine
