// Recognising an IEEE 802.3 Slow Protocols frame (LACPDU, marker PDU) in an mbuf: EtherType
// 0x8809 right after the two MAC addresses (802.3 Annex 57A: Slow Protocols frames are never
// VLAN-tagged).
#pragma once

#include <rte_ether.h>
#include <rte_mbuf.h>

#include <cstdint>

#include "flow/flow_key.hpp"

namespace braid::drivers {

inline bool is_slow_protocols(const rte_mbuf* frame) {
  if (frame->data_len < RTE_ETHER_HDR_LEN) return false;
  const auto* bytes = rte_pktmbuf_mtod(frame, const std::uint8_t*);
  return (std::uint16_t{bytes[12]} << 8 | bytes[13]) == flow::kEtherTypeSlowProtocols;
}

}  // namespace braid::drivers
