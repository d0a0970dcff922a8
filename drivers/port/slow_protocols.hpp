// Recognising an IEEE 802.3 Slow Protocols frame (LACPDU, marker PDU) in an mbuf: EtherType
// 0x8809 right after the two MAC addresses (802.3 Annex 57A: Slow Protocols frames are never
// VLAN-tagged); and an IEEE 802.1AB LLDPDU, EtherType 0x88CC, by the same read.
#pragma once

#include <rte_ether.h>
#include <rte_mbuf.h>

#include <cstdint>

#include "flow/flow_key.hpp"

namespace braid::drivers {

inline constexpr std::uint16_t kEtherTypeLldp = 0x88cc;  // IEEE 802.1AB 7.1

// The EtherType right after the two MAC addresses (a VLAN tag's TPID when tagged); 0 for a frame
// shorter than an Ethernet header.
inline std::uint16_t outer_ethertype(const rte_mbuf* frame) {
  if (frame->data_len < RTE_ETHER_HDR_LEN) return 0;
  const auto* bytes = rte_pktmbuf_mtod(frame, const std::uint8_t*);
  return static_cast<std::uint16_t>(std::uint16_t{bytes[12]} << 8 | bytes[13]);
}

inline bool is_slow_protocols(const rte_mbuf* frame) {
  return outer_ethertype(frame) == flow::kEtherTypeSlowProtocols;
}

// IEEE 802.1AB LLDPDUs, untagged as 802.1AB 7.1 sends them (a tagged one is data to braid).
inline bool is_lldp(const rte_mbuf* frame) {
  return outer_ethertype(frame) == kEtherTypeLldp;
}

}  // namespace braid::drivers
