// What braid allocates from DPDK's memory (hugepages) for a config, per NUMA socket: the data
// mempools (sized by mbufs_needed), the descriptor rings of every queue, the control pool, the
// bonds' slow rings. Pure arithmetic over the config and each port's socket, so the engine sizes
// its pools with it, `braid --check --memory` reports it before any hardware is touched, and a
// test holds scripts/hugepages' reservation against it (doc/deploy.md "Hugepages").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/mempool_sizing.hpp"

namespace braid::engine {

// The DPDK constants the plan depends on (engine.cpp static_asserts them against DPDK's own).
inline constexpr std::uint32_t kMbufDefaultDataRoom = 2176;  // RTE_MBUF_DEFAULT_BUF_SIZE
inline constexpr std::uint32_t kMbufHeadroom = 128;          // RTE_PKTMBUF_HEADROOM
inline constexpr std::uint32_t kMbufStructBytes = 128;       // sizeof(struct rte_mbuf)
// A mempool object's header, cache-line aligned, plus the padding DPDK adds so that objects
// spread over memory channels: at most this much per object (checked live by `show memory`).
inline constexpr std::uint32_t kMempoolObjectOverhead = 128;
// Hardware descriptor (up to 64 B), the PMD's software ring entry and completion entry.
inline constexpr std::uint32_t kDescriptorBytes = 128;
// The largest frame around an MTU: Ethernet header, CRC and two VLAN tags (QinQ).
inline constexpr std::uint32_t kFrameOverhead = 14 + 4 + 2 * 4;
// Control mbufs (LACPDUs, marker responses) beyond what the members' control TX queues hold:
// a few in flight per member, and spare.
inline constexpr std::uint32_t kControlFramesInFlightPerMember = 16;
inline constexpr std::uint32_t kControlPoolSpare = 256;

struct SocketMemory {
  int socket = 0;
  MempoolDemand demand;
  std::uint32_t mbufs = 0;
  std::uint32_t data_room = 0;
  std::uint64_t mempool_bytes = 0;     // objects and the pool's ring of pointers
  std::uint64_t descriptor_bytes = 0;  // the RX and TX rings of the socket's ports
  // Those TX rings' descriptors (demand.tx_descriptors: the TX descriptors, on any socket, that
  // may hold this socket's mbufs).
  std::uint64_t tx_ring_descriptors = 0;
  std::uint64_t control_bytes = 0;  // the control pool and slow rings, on the main socket
  std::uint64_t total_bytes() const { return mempool_bytes + descriptor_bytes + control_bytes; }
};

struct MemoryPlan {
  std::vector<SocketMemory> sockets;  // ascending; every socket with ports, and the main one
  std::uint32_t control_mbufs = 0;
  std::uint64_t bond_table_bytes = 0;  // distribution tables: process memory, not hugepages
};

// Bytes of one mempool object for a data room (upper bound of DPDK's rte_mempool_calc_obj_size).
constexpr std::uint64_t mempool_object_bytes(std::uint32_t data_room) {
  return std::uint64_t{data_room} + kMbufStructBytes + kMempoolObjectOverhead;
}
// A pool of `mbufs` objects: the objects and a ring of pointers with a power-of-two size.
std::uint64_t mempool_bytes(std::uint32_t mbufs, std::uint32_t data_room);
// The data room a socket's mbufs need for the largest MTU among its ports.
std::uint32_t data_room_for_mtu(std::uint32_t max_mtu);

// `port_sockets[i]`: the NUMA socket of config.ports[i], or kAnySocket (vdevs, devices without
// affinity), which counts as `main_socket` like the engine does.
MemoryPlan plan_memory(const config::Config& config, const std::vector<int>& port_sockets,
                       int main_socket);

// Multi-line report: per socket, what each part takes and the sum.
std::string format_memory_plan(const MemoryPlan& plan);

}  // namespace braid::engine
