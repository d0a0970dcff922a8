#include "engine/memory_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bond/bucket_assignment.hpp"
#include "bond/slow_policer.hpp"
#include "engine/placement.hpp"
#include "engine/port_queues.hpp"

namespace braid::engine {
namespace {

// A bond keeps the published distribution table and the one being built: two generations.
constexpr std::uint64_t kTableGenerations = 2;
constexpr std::uint64_t kBucketBytes = 2;  // bond::MemberIndex

std::string mib(std::uint64_t bytes) {
  char text[32];
  if (bytes < 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return text;
}

// The ports whose received mbufs port `index` transmits: its cross-connect peer's ports (a
// bond member's, its bond's peer's). A TX ring holds those mbufs until the NIC frees them (i40e,
// ixgbe and ice only when the slot is used again), so its descriptors are charged to their
// pools. A port that forwards nothing is charged to its own.
std::vector<std::size_t> tx_sources(const config::Config& config, std::size_t index) {
  const config::PortConfig& port = config.ports[index];
  const config::BondConfig* bond = config.bond_of_port(port.name);
  const std::string& endpoint = bond != nullptr ? bond->name : port.name;
  std::vector<std::size_t> sources;
  const auto add_ports_of = [&](const std::string& name) {
    std::vector<std::string> names = {name};
    if (const config::BondConfig* peer = config.find_bond(name)) names = peer->members;
    for (const std::string& member : names) {
      for (std::size_t p = 0; p < config.ports.size(); ++p) {
        if (config.ports[p].name == member &&
            std::find(sources.begin(), sources.end(), p) == sources.end())
          sources.push_back(p);
      }
    }
  };
  for (const config::CrossConnect& pair : config.cross_connects) {
    if (pair.a == endpoint) add_ports_of(pair.b);
    if (pair.b == endpoint) add_ports_of(pair.a);
  }
  if (sources.empty()) sources.push_back(index);
  return sources;
}

}  // namespace

std::uint64_t mempool_bytes(std::uint32_t mbufs, std::uint32_t data_room) {
  return std::uint64_t{mbufs} * mempool_object_bytes(data_room) +
         std::bit_ceil(std::uint64_t{mbufs} + 1) * sizeof(void*);
}

std::uint32_t data_room_for_mtu(std::uint32_t max_mtu) {
  return std::max(kMbufDefaultDataRoom, max_mtu + kFrameOverhead + kMbufHeadroom);
}

MemoryPlan plan_memory(const config::Config& config, const std::vector<int>& port_sockets,
                       int main_socket) {
  std::map<int, SocketMemory> sockets;
  std::map<int, std::uint32_t> max_mtu;
  sockets[main_socket].socket = main_socket;
  MemoryPlan plan;
  plan.control_mbufs = kControlPoolSpare;
  const std::size_t workers = config.workers.lcores.size();
  const auto socket_of = [&](std::size_t i) {
    return i < port_sockets.size() && port_sockets[i] != kAnySocket ? port_sockets[i] : main_socket;
  };
  for (std::size_t i = 0; i < config.ports.size(); ++i) {
    const config::PortConfig& port = config.ports[i];
    const int socket = socket_of(i);
    const PortQueues queues = plan_port_queues(port, config.bond_of_port(port.name), workers);
    SocketMemory& s = sockets[socket];
    s.socket = socket;
    MempoolDemand& d = s.demand;
    const std::uint64_t rx = queues.rx_descriptors(port.rx_descriptors);
    const std::uint64_t tx = std::uint64_t{queues.tx_queues} * port.tx_descriptors;
    d.rx_descriptors += rx;
    // The data TX rings (the control queue carries control-pool mbufs) hold their sources'
    // mbufs: each source socket's pool may have to cover all of them.
    const std::uint64_t data_tx = std::uint64_t{static_cast<std::uint16_t>(
                                      queues.tx_queues - (queues.control_tx_queue ? 1 : 0))} *
                                  port.tx_descriptors;
    std::vector<int> charged;
    for (const std::size_t source : tx_sources(config, i)) {
      const int source_socket = socket_of(source);
      if (std::find(charged.begin(), charged.end(), source_socket) != charged.end()) continue;
      charged.push_back(source_socket);
      sockets[source_socket].socket = source_socket;
      sockets[source_socket].demand.tx_descriptors += data_tx;
    }
    d.pmd_held += port.extra_mbufs;
    // Held packets come from the pool of the port that received them: any socket's.
    d.bucket_holds = std::uint64_t{bond::kHeldPacketsPerWorker} * workers * config.bonds.size();
    d.lcores = static_cast<std::uint32_t>(workers + 1);
    d.egress_ports = static_cast<std::uint32_t>(config.ports.size());
    d.burst = config.workers.burst;
    s.descriptor_bytes += (rx + tx) * kDescriptorBytes;
    s.tx_ring_descriptors += tx;
    max_mtu[socket] = std::max<std::uint32_t>(max_mtu[socket], port.mtu);
    if (queues.control_tx_queue) {
      plan.control_mbufs += kControlTxDescriptors + kControlFramesInFlightPerMember;
    }
  }
  for (auto& [socket, s] : sockets) {
    if (!max_mtu.contains(socket)) continue;  // the main socket without ports: control only
    s.mbufs = mbufs_needed(s.demand);
    s.data_room = data_room_for_mtu(max_mtu[socket]);
    s.mempool_bytes = mempool_bytes(s.mbufs, s.data_room);
  }
  SocketMemory& main = sockets[main_socket];
  main.control_bytes = mempool_bytes(plan.control_mbufs, kMbufDefaultDataRoom) +
                       config.bonds.size() * bond::kSlowRingSlots * sizeof(void*);
  // One table per traffic class (a bond without classes has one).
  for (const config::BondConfig& bond : config.bonds) {
    const std::uint64_t tables = std::max<std::size_t>(bond.classes.classes.size(), 1);
    plan.bond_table_bytes += tables * bond.buckets * kBucketBytes * kTableGenerations;
  }
  for (auto& [socket, s] : sockets)
    plan.sockets.push_back(s);
  return plan;
}

std::string format_memory_plan(const MemoryPlan& plan) {
  std::string text = "memory: what braid allocates from DPDK (hugepages), per NUMA socket\n";
  char line[512];
  for (const SocketMemory& s : plan.sockets) {
    std::snprintf(line, sizeof line, "  socket %d: %s (%llu bytes)\n", s.socket,
                  mib(s.total_bytes()).c_str(), static_cast<unsigned long long>(s.total_bytes()));
    text += line;
    if (s.mbufs != 0) {
      std::snprintf(
          line, sizeof line,
          "    mempool: %u mbufs x %llu B (%u B data room) = %s; covers %llu RX and "
          "%llu TX descriptors (TX: the rings that send what this socket's ports "
          "receive)\n"
          "    descriptor rings: %llu RX + %llu TX descriptors = %s\n",
          s.mbufs, static_cast<unsigned long long>(mempool_object_bytes(s.data_room)), s.data_room,
          mib(s.mempool_bytes).c_str(), static_cast<unsigned long long>(s.demand.rx_descriptors),
          static_cast<unsigned long long>(s.demand.tx_descriptors),
          static_cast<unsigned long long>(s.demand.rx_descriptors),
          static_cast<unsigned long long>(s.tx_ring_descriptors), mib(s.descriptor_bytes).c_str());
      text += line;
    }
    if (s.control_bytes != 0) {
      std::snprintf(line, sizeof line, "    control pool (%u mbufs) and slow rings: %s\n",
                    plan.control_mbufs, mib(s.control_bytes).c_str());
      text += line;
    }
  }
  std::snprintf(line, sizeof line, "  process memory (not hugepages): bond tables %s\n",
                mib(plan.bond_table_bytes).c_str());
  text += line;
  text +=
      "  plus DPDK's own: EAL heap and memzones, per-lcore mempool caches, PMD queues "
      "(scripts/hugepages adds 256 MiB per node for them)\n";
  return text;
}

}  // namespace braid::engine
