// The bond's own frames (LACPDUs, marker responses, BFD packets, LLDPDUs) onto a member's
// control TX queue, the queue the engine reserves on every member for the protocol loop: one
// frame, one mbuf from the control pool, one TX burst. A refused frame is counted and reported,
// never retried here (each protocol knows when to send again).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <vector>

#include "bond/dpdk/bond_counters.hpp"
#include "common/bytes.hpp"

namespace braid::bond {

class ControlSender {
 public:
  // `ports`: the members' ethdev ids, by member index.
  ControlSender(rte_mempool* pool, std::uint16_t tx_queue, std::vector<std::uint16_t> ports,
                BondCounters& counters)
      : pool_(pool), tx_queue_(tx_queue), ports_(std::move(ports)), counters_(&counters) {}

  // True when member m's queue took the frame.
  bool send(std::size_t m, ByteSpan frame);

 private:
  rte_mbuf* mbuf();

  rte_mempool* pool_;
  std::uint16_t tx_queue_;
  std::vector<std::uint16_t> ports_;
  BondCounters* counters_;
};

}  // namespace braid::bond
