// A worker lcore's state and its poll loop: RX burst from each owned (port, queue), hand the
// burst to where its route says (a port's TX buffer, a bond's egress, or a bond member's
// ingress), drain partial bursts on a TSC deadline, report a quiescent state for table
// publication. Everything here belongs to one thread; the control thread only reads the
// counters and sets `running`.
#pragma once

#include <rte_rcu_qsbr.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "bond/dpdk/bond_datapath.hpp"
#include "datapath/counters.hpp"
#include "datapath/tx_buffer.hpp"
#include "engine/tx_queue_probe.hpp"

namespace braid::engine {

enum class RouteKind : std::uint8_t {
  kToPort,      // cross-connect: straight to the peer port's TX buffer
  kToBond,      // into a bond: hash, bucket, member
  kFromMember,  // out of a bond member: Slow Protocols to control, data to the bond's peer
  kNoRoute,     // nothing to forward to (counted as no_route)
};

struct RxRoute {
  std::uint16_t port = 0;
  std::uint16_t queue = 0;
  RouteKind kind = RouteKind::kNoRoute;
  datapath::TxBuffer* egress = nullptr;
  bond::BondEgress* bond_egress = nullptr;
  bond::BondIngress* bond_ingress = nullptr;
};

struct Worker {
  unsigned lcore = 0;
  unsigned index = 0;  // thread id for RCU, and the TX queue this worker owns on every port
  int socket = 0;
  std::uint16_t burst = 32;
  std::uint64_t drain_cycles = 0;  // TSC cycles between forced drains of partial bursts
  std::vector<RxRoute> routes;
  std::vector<std::unique_ptr<datapath::TxBuffer>> tx_buffers;  // one per port, this worker's queue
  std::vector<std::unique_ptr<bond::BondEgress>> bond_egress;
  std::vector<std::unique_ptr<bond::BondIngress>> bond_ingress;
  std::vector<std::unique_ptr<TxQueueProbe>> tx_probes;  // one per bond: its members' queues
  datapath::WorkerCounters counters;
  const std::atomic<bool>* running = nullptr;
  // False (console `stop`): keep polling, hand Slow Protocols frames to LACP, drop the rest as
  // `stopped`. The worker acknowledges in forwarding_seen once it has stopped sending.
  const std::atomic<bool>* forwarding = nullptr;
  std::atomic<bool> forwarding_seen{true};
  rte_rcu_qsbr* qsbr = nullptr;

  // Sends every partial burst now.
  void drain();
  // The poll loop; returns when `running` turns false, after a final drain.
  void run();
};

// rte_eal_remote_launch entry point; `arg` is a Worker*.
int worker_main(void* arg);

}  // namespace braid::engine
