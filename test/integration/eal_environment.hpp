// One EAL per test process (EAL cannot be re-initialised): a gtest Environment that starts it
// the way CI machines need it (no hugepages, no PCI, a private file prefix) and the helpers that
// integration tests share.
#pragma once

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <cstdint>
#include <string>
#include <vector>

namespace braid::test {

class EalEnvironment : public ::testing::Environment {
 public:
  // `lcores`: EAL's lcore arguments (the multi-worker tests map several lcores onto each CPU
  // with --lcores).
  explicit EalEnvironment(std::vector<std::string> lcores = {"-l", "0,1"})
      : lcores_(std::move(lcores)) {}
  void SetUp() override;
  void TearDown() override;

 private:
  std::vector<std::string> lcores_;
};

// Takes every frame on `ring`, shows each to `visit`, and frees it.
template <typename Visit>
void drain_ring(rte_ring* ring, Visit visit) {
  rte_mbuf* burst[64];
  unsigned n = 0;
  while ((n = rte_ring_dequeue_burst(ring, reinterpret_cast<void**>(burst), 64, nullptr)) != 0) {
    for (unsigned i = 0; i < n; ++i)
      visit(static_cast<const rte_mbuf*>(burst[i]));
    rte_pktmbuf_free_bulk(burst, n);
  }
}

// Removes TX callbacks (callbacks[q] on queue q; null: none) from a stopped port before it is
// closed. A callback outlives its port in the ethdev slot, and the next port there inherits it;
// rte_eth_remove_tx_callback refuses a queue at or above the port's current TX queue count, so a
// port an engine configured with fewer queues gets its queues back first. False (and a test
// failure) when one stays.
bool remove_tx_callbacks(std::uint16_t port_id,
                         const std::vector<const rte_eth_rxtx_callback*>& callbacks);

// A pair of rings exposed as one ethdev (rte_eth_from_rings): the test enqueues on `to_port`
// (the port's RX) and dequeues on `from_port` (the port's TX). The port has `tx_queues` TX queues
// that all feed `from_port` (multi-producer: a worker and the control thread may both send), and
// `rx_queues` RX queues, a ring each (to_port(q)): the test plays the NIC's RSS by picking one.
// Closed and freed on destruction.
class RingPort {
 public:
  RingPort(const std::string& name, unsigned tx_queues = 2, unsigned ring_size = 4096,
           unsigned rx_queues = 1);
  ~RingPort();
  RingPort(const RingPort&) = delete;
  RingPort& operator=(const RingPort&) = delete;

  const std::string& name() const { return name_; }
  std::uint16_t port_id() const { return port_id_; }
  rte_ring* to_port(std::size_t queue = 0) { return to_port_[queue]; }
  std::size_t rx_queues() const { return to_port_.size(); }
  rte_ring* from_port() { return from_port_; }
  // Takes every frame the port has sent so far, shows each to `visit`, and frees it.
  template <typename Visit>
  void drain(Visit visit) {
    drain_ring(from_port_, visit);
  }

 private:
  static constexpr std::size_t kSendTimeOffset = 56;  // Stamp::time in traffic.hpp
  static std::uint16_t stamp_send_time(std::uint16_t port, std::uint16_t queue, rte_mbuf** packets,
                                       std::uint16_t count, void* user);

  std::string name_;
  std::vector<const rte_eth_rxtx_callback*> callbacks_;
  std::vector<rte_ring*> to_port_;
  rte_ring* from_port_ = nullptr;
  std::uint16_t port_id_ = 0;
};

// A process-wide mempool for frames the tests inject.
rte_mempool* test_mempool();

// Unique per process, for names that must not collide (mempools, rings, ports, files).
std::string unique_name(const std::string& stem);

}  // namespace braid::test
