// The header fields a traffic classifier reads (lib/classify), taken from a frame the l34 fast
// path accepted (try_hash_l34, try_hash_l34_x4): its shape is known by then (at most two VLAN
// tags, IPv4 without options and not a fragment or IPv6 without extension headers, TCP or UDP
// whose header the datagram holds, RoCEv2 with its whole BTH), so each field is one load at a
// fixed offset, where parsing the frame again for its class cost as much as the hash itself.
// The same fields as the flow parser's outer level for every such frame (a unit test checks it);
// a VXLAN frame (UDP 4789) is plain UDP here: its inner headers are the parser's.
#pragma once

#include <cstdint>

#include "common/bytes.hpp"
#include "flow/flow_key.hpp"
#include "flow/vlan_tags.hpp"

namespace braid::flow {

struct L34Fields {
  std::uint32_t roce_dest_qp = 0;  // valid when rocev2
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  std::uint8_t protocol = 0;  // kIpProtoTcp or kIpProtoUdp
  std::uint8_t dscp = 0;
  std::uint8_t pcp = 0;  // valid when tagged: the outermost tag's
  std::uint8_t roce_opcode = 0;
  bool tagged = false;
  bool rocev2 = false;
};

// `frame` (tags included) must be one the l34 fast path accepted. Written in place: returned by
// value from a call the compiler kept out of line, the struct went through the stack, and
// reading it back in other sizes than it was stored stalled store forwarding (a third of the
// hash pass's time, measured in bench_classify).
inline void l34_fields(ByteSpan frame, L34Fields& out) {
  constexpr std::size_t kIpv4L4 = kEthernetHeaderBytes + 20;
  constexpr std::size_t kIpv6L4 = kEthernetHeaderBytes + 40;
  constexpr std::size_t kUdpBytes = 8;
  constexpr std::size_t kBthDestQp = 4;
  out = L34Fields{};
  const bool one = is_vlan_tpid(load_be16(frame, 12));
  const bool two = one && is_vlan_tpid(load_be16(frame, 12 + kVlanTagBytes));
  out.tagged = one;
  out.pcp = static_cast<std::uint8_t>(frame[kEthernetHeaderBytes] >> 5);
  const ByteSpan l2 = frame.subspan(kVlanTagBytes * (std::size_t{one} + std::size_t{two}));
  const bool ipv6 = load_be16(l2, 12) == kEtherTypeIpv6;
  // IPv4: TOS at 15, protocol at 23; IPv6: traffic class across 14-15, next header at 20.
  out.dscp = static_cast<std::uint8_t>(ipv6 ? (load_be16(l2, 14) >> 6) & 0x3F : l2[15] >> 2);
  out.protocol = ipv6 ? l2[20] : l2[23];
  const std::size_t l4 = ipv6 ? kIpv6L4 : kIpv4L4;
  out.src_port = load_be16(l2, l4);
  out.dst_port = load_be16(l2, l4 + 2);
  out.rocev2 = out.protocol == kIpProtoUdp && out.dst_port == kUdpPortRocev2;
  if (out.rocev2) {
    out.roce_opcode = l2[l4 + kUdpBytes];
    out.roce_dest_qp = load_be32(l2, l4 + kUdpBytes + kBthDestQp) & 0x00FFFFFF;
  }
}

// The same by value, for tests and one-off callers (the workers' pass uses the form above).
inline L34Fields l34_fields(ByteSpan frame) {
  L34Fields out;
  l34_fields(frame, out);
  return out;
}

}  // namespace braid::flow
