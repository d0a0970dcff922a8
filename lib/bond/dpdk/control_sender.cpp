#include "bond/dpdk/control_sender.hpp"

#include <rte_ethdev.h>

#include <cstring>

namespace braid::bond {

// A PMD that frees transmitted mbufs only when their descriptor is reused (i40e, ixgbe, ice)
// holds up to a control queue's worth of them; the pool is sized for that (engine.cpp), and
// where it still runs dry, asking the PMDs to release what they have sent is the fallback.
rte_mbuf* ControlSender::mbuf() {
  if (rte_mbuf* mbuf = rte_pktmbuf_alloc(pool_)) return mbuf;
  for (const std::uint16_t port : ports_)
    rte_eth_tx_done_cleanup(port, tx_queue_, 0);
  return rte_pktmbuf_alloc(pool_);
}

bool ControlSender::send(std::size_t m, ByteSpan frame) {
  rte_mbuf* packet = mbuf();
  if (packet == nullptr) {
    ++counters_->control_no_mbuf;
    ++counters_->control_tx_failed;
    return false;
  }
  char* data = rte_pktmbuf_append(packet, static_cast<std::uint16_t>(frame.size()));
  if (data == nullptr) {
    rte_pktmbuf_free(packet);
    ++counters_->control_tx_failed;
    return false;
  }
  std::memcpy(data, frame.data(), frame.size());
  if (rte_eth_tx_burst(ports_.at(m), tx_queue_, &packet, 1) == 1) {
    ++counters_->control_tx;
    return true;
  }
  rte_pktmbuf_free(packet);
  ++counters_->control_tx_failed;
  return false;
}

}  // namespace braid::bond
