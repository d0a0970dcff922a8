// How many mbufs a socket's mempool needs. Pure arithmetic, unit-tested.
#pragma once

#include <cstdint>

namespace braid::engine {

struct MempoolDemand {
  // Sum over the RX queues on the socket, bond members' slow-protocol queues included
  // (PortQueues::rx_descriptors): each ring slot holds an mbuf.
  std::uint64_t rx_descriptors = 0;
  std::uint64_t tx_descriptors =
      0;                           // sum over TX queues: mbufs wait there until the NIC frees them
  std::uint64_t pmd_held = 0;      // mbufs a PMD keeps for itself (net_pcap infinite_rx)
  std::uint64_t bucket_holds = 0;  // what workers may hold for bonds' held buckets (at most
                                   // kHeldPacketsPerWorker per worker and bond)
  std::uint32_t lcores = 0;        // lcores that allocate or free from the pool
  std::uint32_t egress_ports = 0;
  std::uint32_t burst = 32;
};

inline constexpr std::uint32_t kMempoolCacheSize = 256;

// Every mbuf can be in exactly one place at a time: an RX ring, a TX ring, a worker's RX burst
// array or TX buffers (one burst per egress port), a worker's hold for held buckets, an lcore's
// mempool cache (which may hold up to 1.5x its size before flushing), or a PMD's private store.
// The sum of those maxima, plus 1/8 slack for the control thread's own frames, can never be
// exhausted by forwarding alone.
constexpr std::uint32_t mbufs_needed(const MempoolDemand& demand) {
  const std::uint64_t in_worker =
      std::uint64_t{demand.lcores} * demand.burst * (demand.egress_ports + 1);
  const std::uint64_t in_caches = std::uint64_t{demand.lcores} * kMempoolCacheSize * 3 / 2;
  const std::uint64_t total = demand.rx_descriptors + demand.tx_descriptors + demand.pmd_held +
                              demand.bucket_holds + in_worker + in_caches;
  return static_cast<std::uint32_t>(total + total / 8 + 1024);
}

}  // namespace braid::engine
