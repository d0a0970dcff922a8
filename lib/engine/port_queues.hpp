// How many queues a port gets and who owns each: a pure function of the port's config, the bond
// it belongs to (if any) and the number of workers, so sizing and placement agree with what
// EthdevPort configures, and the unit tests can check it without EAL.
#pragma once

#include <cstdint>

#include "config/config.hpp"

namespace braid::engine {

// A member's slow-protocol RX queue receives a few LACPDUs and markers per second
// (802.1AX 6.4.4: at most 3 LACPDUs per fast periodic interval); a short ring is plenty and
// keeps the mbufs it pins few.
inline constexpr std::uint16_t kSlowRxDescriptors = 128;
// A member's control TX queue carries a few LACPDUs and marker responses per second; a short
// ring bounds how many control mbufs a PMD that frees on slot reuse (i40e, ixgbe, ice) can hold,
// which the control pool must cover (engine.cpp).
inline constexpr std::uint16_t kControlTxDescriptors = 64;

struct PortQueues {
  std::uint16_t data_rx_queues = 1;  // polled by workers; RSS spreads data over these only
  // One more RX queue (index data_rx_queues) that no worker polls: an rte_flow rule steers
  // EtherType 0x8809 there and the bond's control thread reads it. Requested only; the NIC may
  // refuse the rule, and the port then drops the queue again (doc/bond.md).
  bool slow_rx_queue = false;
  // Worker w owns TX queue w; a bond member's last TX queue belongs to the control thread
  // (LACPDUs, marker responses), so no TX queue is ever shared between threads.
  std::uint16_t tx_queues = 1;
  bool control_tx_queue = false;

  std::uint16_t rx_queues() const { return data_rx_queues + (slow_rx_queue ? 1 : 0); }
  std::uint16_t slow_rx_queue_index() const { return data_rx_queues; }
  std::uint16_t control_tx_queue_index() const { return tx_queues - 1; }
  // RX descriptors the port fills with mbufs from its socket's pool (mempool sizing).
  std::uint64_t rx_descriptors(std::uint16_t per_data_queue) const {
    return std::uint64_t{data_rx_queues} * per_data_queue +
           (slow_rx_queue ? kSlowRxDescriptors : 0);
  }
};

// `bond`: the bond the port is a member of, or nullptr.
PortQueues plan_port_queues(const config::PortConfig& port, const config::BondConfig* bond,
                            std::size_t workers);

}  // namespace braid::engine
