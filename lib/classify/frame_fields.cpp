// Both extractions mirror lib/flow/parser.cpp: the same layers, the same stops (the datagram's
// end bounds L4, a short L4 header leaves no ports, a short BTH leaves ports but no RoCE).
#include "classify/frame_fields.hpp"

#include <algorithm>

#include "flow/parser.hpp"

namespace braid::classify {
namespace {

using flow::FlowKey;

constexpr std::size_t kEthernetHeaderBytes = 14;  // IEEE 802.3 §3.1.1
constexpr std::size_t kVlanTagBytes = 4;          // IEEE 802.1Q §9.3
constexpr unsigned kPcpShift = 13;                // TCI: PCP(3) DEI(1) VID(12)
constexpr unsigned kDscpShift = 2;                // RFC 2474 §3: DSCP above the two ECN bits
constexpr std::size_t kIpv4HeaderBytes = 20;      // RFC 791 §3.1, IHL = 5
constexpr std::uint8_t kIpv4VersionIhl5 = 0x45;
constexpr std::uint16_t kIpv4FragmentBits = 0x3FFF;  // MF and the fragment offset
constexpr std::size_t kIpv6HeaderBytes = 40;         // RFC 8200 §3
constexpr std::size_t kTcpMinHeaderBytes = 20;       // RFC 9293 §3.1
constexpr std::size_t kUdpHeaderBytes = 8;           // RFC 768
constexpr std::size_t kBthBytes = 12;                // InfiniBand Base Transport Header
constexpr std::size_t kBthDestQpOffset = 4;
constexpr std::uint32_t kBthDestQpMask = 0x00FFFFFF;
constexpr std::size_t kVxlanHeaderBytes = 8;  // RFC 7348 §5
constexpr std::uint8_t kVxlanFlagVni = 0x08;  // the I flag: VNI valid

struct KeyLevel {
  const flow::L2Header& l2;
  const flow::L3Header& l3;
  const flow::L4Header& l4;
  std::uint16_t vlan_bit;
  std::uint16_t l3_bit;
  std::uint16_t l4_bit;
  std::uint16_t roce_bit;
};

constexpr bool carries_ports(std::uint16_t protocol) {
  return protocol == flow::kIpProtoTcp || protocol == flow::kIpProtoUdp ||
         protocol == flow::kIpProtoSctp;
}

HeaderFields from_level(const FlowKey& key, const KeyLevel& level) {
  HeaderFields out;
  if (key.has(static_cast<flow::Layer>(level.vlan_bit))) {
    out.pcp = static_cast<std::uint8_t>(level.l2.vlan_tci[0] >> kPcpShift);
  }
  if (!key.has(static_cast<flow::Layer>(level.l3_bit))) return out;
  out.dscp = static_cast<std::uint8_t>(level.l3.traffic_class >> kDscpShift);
  out.protocol = level.l3.protocol;
  if (key.has(static_cast<flow::Layer>(level.l4_bit)) && carries_ports(out.protocol)) {
    out.has_ports = true;
    out.src_port = level.l4.src_port;
    out.dst_port = level.l4.dst_port;
  }
  if (key.has(static_cast<flow::Layer>(level.roce_bit))) {
    out.roce_opcode = level.l4.roce_opcode;
    out.roce_dest_qp = level.l4.roce_dest_qp;
  }
  return out;
}

constexpr bool is_vlan_tpid(std::uint16_t ethertype) {
  return ethertype == flow::kEtherTypeVlan || ethertype == flow::kEtherTypeQinQ ||
         ethertype == flow::kEtherTypeQinQLegacy;
}

bool level_from_frame(ByteSpan frame, HeaderFields& out, FrameFields* tunnel);

// A VXLAN header and the frame it carries (RFC 7348 §5): the inner level's fields.
bool vxlan_from_frame(ByteSpan payload, FrameFields& fields) {
  if (payload.size() < kVxlanHeaderBytes || (payload[0] & kVxlanFlagVni) == 0) return false;
  fields.tunnel = true;
  return level_from_frame(payload.subspan(kVxlanHeaderBytes), fields.inner, nullptr);
}

// TCP or UDP at `l4` with `l4_bytes` of datagram left. VXLAN at the outer level (`tunnel`, where
// its inner fields go) is read on; false for other protocols.
bool ports_from_frame(ByteSpan frame, std::size_t l4, std::size_t l4_bytes, HeaderFields& out,
                      FrameFields* tunnel) {
  if (out.protocol == flow::kIpProtoTcp) {
    if (l4_bytes < kTcpMinHeaderBytes) return true;  // truncated: a key without ports
  } else if (out.protocol == flow::kIpProtoUdp) {
    if (l4_bytes < kUdpHeaderBytes) return true;
  } else {
    return false;  // other protocols take the parser
  }
  out.has_ports = true;
  out.src_port = load_be16(frame, l4);
  out.dst_port = load_be16(frame, l4 + 2);
  if (out.protocol != flow::kIpProtoUdp) return true;
  if (out.dst_port == flow::kUdpPortVxlan && tunnel != nullptr) {
    return vxlan_from_frame(frame.subspan(l4 + kUdpHeaderBytes, l4_bytes - kUdpHeaderBytes),
                            *tunnel);
  }
  if (out.dst_port == flow::kUdpPortRocev2 && l4_bytes >= kUdpHeaderBytes + kBthBytes) {
    const std::size_t bth = l4 + kUdpHeaderBytes;
    out.roce_opcode = frame[bth];
    out.roce_dest_qp = load_be32(frame, bth + kBthDestQpOffset) & kBthDestQpMask;
  }
  return true;
}

bool ipv4_from_frame(ByteSpan frame, std::size_t l3, HeaderFields& out, FrameFields* tunnel) {
  if (frame.size() < l3 + kIpv4HeaderBytes || frame[l3] != kIpv4VersionIhl5) return false;
  const std::size_t total_bytes = load_be16(frame, l3 + 2);
  if (total_bytes < kIpv4HeaderBytes || (load_be16(frame, l3 + 6) & kIpv4FragmentBits) != 0) {
    return false;
  }
  out.dscp = static_cast<std::uint8_t>(frame[l3 + 1] >> kDscpShift);
  out.protocol = frame[l3 + 9];
  // Ethernet padding follows a short datagram (IEEE 802.3 §4.2.3.3).
  const std::size_t datagram = std::min(frame.size() - l3, total_bytes);
  return ports_from_frame(frame, l3 + kIpv4HeaderBytes, datagram - kIpv4HeaderBytes, out, tunnel);
}

bool ipv6_from_frame(ByteSpan frame, std::size_t l3, HeaderFields& out, FrameFields* tunnel) {
  if (frame.size() < l3 + kIpv6HeaderBytes || (frame[l3] >> 4) != 6) return false;
  out.dscp = static_cast<std::uint8_t>((load_be16(frame, l3) >> (4 + kDscpShift)) & 0x3F);
  out.protocol = frame[l3 + 6];  // extension headers are not TCP or UDP: the parser's job
  // Payload length 0 is a jumbogram (RFC 2675): the frame's end bounds it.
  const std::size_t payload_bytes = load_be16(frame, l3 + 4);
  const std::size_t available = frame.size() - l3 - kIpv6HeaderBytes;
  const std::size_t l4_bytes = payload_bytes == 0 ? available : std::min(available, payload_bytes);
  return ports_from_frame(frame, l3 + kIpv6HeaderBytes, l4_bytes, out, tunnel);
}

// One level from its Ethernet header on; `tunnel` is null at the inner level (no VXLAN in VXLAN,
// as the parser).
bool level_from_frame(ByteSpan frame, HeaderFields& out, FrameFields* tunnel) {
  if (frame.size() < kEthernetHeaderBytes) return false;
  std::size_t l3 = kEthernetHeaderBytes;
  std::uint16_t ethertype = load_be16(frame, l3 - 2);
  if (is_vlan_tpid(ethertype)) {
    if (frame.size() < l3 + kVlanTagBytes) return false;
    out.pcp = static_cast<std::uint8_t>(frame[l3] >> (kPcpShift - 8));
    ethertype = load_be16(frame, l3 + 2);
    l3 += kVlanTagBytes;
    if (is_vlan_tpid(ethertype)) return false;  // QinQ: the parser's job
  }
  if (ethertype == flow::kEtherTypeIpv4) return ipv4_from_frame(frame, l3, out, tunnel);
  if (ethertype == flow::kEtherTypeIpv6) return ipv6_from_frame(frame, l3, out, tunnel);
  return true;  // not IP (ARP, LACP, MPLS, ...): only the tag counts
}

}  // namespace

void fields_from_key(const FlowKey& key, FrameFields& fields) {
  fields.outer = from_level(key, {key.l2, key.l3, key.l4, flow::kLayerVlan, flow::kLayerL3,
                                  flow::kLayerL4, flow::kLayerRoce});
  fields.tunnel = key.has(flow::kLayerEncap);
  fields.inner =
      fields.tunnel
          ? from_level(key, {key.inner_l2, key.inner_l3, key.inner_l4, flow::kLayerInnerVlan,
                             flow::kLayerInnerL3, flow::kLayerInnerL4, flow::kLayerInnerRoce})
          : HeaderFields{};
}

bool fields_from_frame(ByteSpan frame, FrameFields& fields) {
  fields = FrameFields{};
  return level_from_frame(frame, fields.outer, &fields);
}

FrameFields fields_of(ByteSpan frame) {
  FrameFields fields;
  if (!fields_from_frame(frame, fields)) {
    flow::FlowKey key;
    flow::parse_flow_key(frame, key);
    fields_from_key(key, fields);
  }
  return fields;
}

bool is_roce_cnp(ByteSpan frame) {
  const FrameFields fields = fields_of(frame);
  return fields.outer.roce_opcode == kRoceCnpOpcode ||
         (fields.tunnel && fields.inner.roce_opcode == kRoceCnpOpcode);
}

}  // namespace braid::classify
