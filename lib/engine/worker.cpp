#include "engine/worker.hpp"

#include <rte_cycles.h>

namespace braid::engine {

void Worker::drain() {
  for (const auto& buffer : tx_buffers)
    buffer->flush();
}

void Worker::run() {
  std::array<rte_mbuf*, datapath::kMaxBurst> packets{};
  std::uint64_t last_drain = rte_rdtsc();
  std::uint64_t last_pending = 0;
  rte_rcu_qsbr_thread_online(qsbr, index);
  bool was_forwarding = true;
  forwarding_seen.store(true, std::memory_order_release);
  while (running->load(std::memory_order_relaxed)) {
    const bool forward = forwarding == nullptr || forwarding->load(std::memory_order_acquire);
    if (forward != was_forwarding) {
      if (!forward) {
        // Stopping: what waits to leave leaves now; nothing is sent after the acknowledgement.
        drain();
        for (const auto& egress : bond_egress)
          egress->drop_held(counters);
      }
      was_forwarding = forward;
      forwarding_seen.store(forward, std::memory_order_release);
    }
    std::uint64_t received = 0;
    for (const RxRoute& route : routes) {
      const std::uint16_t n = rte_eth_rx_burst(route.port, route.queue, packets.data(), burst);
      if (n == 0) continue;
      received += n;
      counters.rx_packets[route.port].add(n);
      if (!forward) {
        if (route.kind == RouteKind::kFromMember) {
          route.bond_ingress->receive(packets.data(), n, counters, false);
        } else {
          counters.drops[static_cast<std::size_t>(datapath::DropReason::kStopped)].add(n);
          rte_pktmbuf_free_bulk(packets.data(), n);
        }
        continue;
      }
      switch (route.kind) {
        case RouteKind::kToPort:
          route.egress->add(packets.data(), n);
          break;
        case RouteKind::kToBond:
          route.bond_egress->send(packets.data(), n, counters);
          break;
        case RouteKind::kFromMember:
          route.bond_ingress->receive(packets.data(), n, counters);
          break;
        case RouteKind::kNoRoute:
          counters.drops[static_cast<std::size_t>(datapath::DropReason::kNoRoute)].add(n);
          rte_pktmbuf_free_bulk(packets.data(), n);
          break;
      }
    }
    const std::uint64_t now = rte_rdtsc();
    if (now - last_drain >= drain_cycles) {
      for (const auto& probe : tx_probes)
        probe->measure(now, counters);
      drain();
      last_drain = now;
    }
    std::uint64_t pending = 0;
    for (const auto& buffer : tx_buffers)
      pending += buffer->pending();
    for (const auto& egress : bond_egress)
      pending += egress->held();
    if (pending != last_pending) {
      counters.buffered.set(pending);
      last_pending = pending;
    }
    counters.loops.add(1);
    if (received == 0) counters.idle_loops.add(1);
    // Nothing from an old bond table is held past this point.
    rte_rcu_qsbr_quiescent(qsbr, index);
  }
  drain();
  for (const auto& egress : bond_egress)
    egress->drop_held(counters);
  counters.buffered.set(0);
  rte_rcu_qsbr_thread_offline(qsbr, index);
}

int worker_main(void* arg) {
  static_cast<Worker*>(arg)->run();
  return 0;
}

}  // namespace braid::engine
