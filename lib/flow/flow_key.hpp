// The flow key: every header field a transmit-hash policy may look at, parsed once per packet.
// Fixed-size POD (no heap, trivially copyable) so that a burst of keys lives on the stack and a
// key can be compared or copied with memcpy. Fields that were not parsed stay zero: hash
// policies rely on that to combine fields without branching (a zero port adds nothing).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace braid::flow {

// EtherTypes (IEEE Registration Authority) the parser understands.
inline constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
inline constexpr std::uint16_t kEtherTypeVlan = 0x8100;           // IEEE 802.1Q C-tag
inline constexpr std::uint16_t kEtherTypeQinQ = 0x88A8;           // IEEE 802.1ad S-tag
inline constexpr std::uint16_t kEtherTypeQinQLegacy = 0x9100;     // pre-802.1ad S-tag, still seen
inline constexpr std::uint16_t kEtherTypeSlowProtocols = 0x8809;  // IEEE 802.3 Annex 57A
inline constexpr std::uint16_t kEtherTypeTeb = 0x6558;  // Transparent Ethernet Bridging (GRE)

// IP protocol numbers (IANA).
inline constexpr std::uint8_t kIpProtoHopByHop = 0;
inline constexpr std::uint8_t kIpProtoIcmp = 1;
inline constexpr std::uint8_t kIpProtoTcp = 6;
inline constexpr std::uint8_t kIpProtoUdp = 17;
inline constexpr std::uint8_t kIpProtoRouting = 43;
inline constexpr std::uint8_t kIpProtoFragment = 44;
inline constexpr std::uint8_t kIpProtoGre = 47;
inline constexpr std::uint8_t kIpProtoIcmpv6 = 58;
inline constexpr std::uint8_t kIpProtoDestOptions = 60;
inline constexpr std::uint8_t kIpProtoSctp = 132;

// Well-known UDP destination ports.
inline constexpr std::uint16_t kUdpPortVxlan = 4789;   // RFC 7348 §5
inline constexpr std::uint16_t kUdpPortRocev2 = 4791;  // InfiniBand Annex A17 (RoCEv2)

// Why parsing stopped. The key still holds every layer that was valid before that point; when
// Layer::encap is set, a failure refers to the inner (encapsulated) headers.
enum class ParseStatus : std::uint8_t {
  ok,
  truncated_l2,         // shorter than an Ethernet header or a VLAN tag
  vlan_depth_exceeded,  // a third VLAN tag: braid keys at most two (QinQ)
  unknown_ethertype,    // not an error: L2-only key (ARP, MPLS, ...)
  truncated_l3,         // IP header, IPv4 options or an IPv6 extension header cut short
  bad_ip_version,       // the version nibble disagrees with the EtherType
  bad_ipv4_ihl,         // IHL below 5 words (RFC 791 §3.1)
  bad_ipv4_length,      // total length shorter than the header
  bad_ipv6_ext,         // extension header chain too long, or hop-by-hop not first (RFC 8200 §4.1)
  unknown_l4,           // not an error: L3 key without ports (OSPF, ESP, ...)
  truncated_l4,         // TCP/UDP/SCTP/ICMP or RoCEv2 BTH header cut short
  truncated_tunnel,     // VXLAN or GRE header cut short
  bad_tunnel,           // VXLAN without the I flag, GRE with routing or a non-zero version
};

std::string_view to_string(ParseStatus status);

// True for statuses that mean the frame was malformed or cut short (not merely uninteresting).
constexpr bool is_error(ParseStatus status) {
  return status != ParseStatus::ok && status != ParseStatus::unknown_ethertype &&
         status != ParseStatus::unknown_l4;
}

// Bits of FlowKey::layers: which parts of the key hold parsed data.
enum Layer : std::uint16_t {
  kLayerL2 = 1U << 0,
  kLayerVlan = 1U << 1,  // at least one tag (see L2Header::vlan_count)
  kLayerL3 = 1U << 2,
  kLayerL4 = 1U << 3,     // TCP, UDP, SCTP or ICMP header present (not for IP fragments)
  kLayerRoce = 1U << 4,   // RoCEv2 BTH parsed: L4Header::roce_dest_qp valid
  kLayerEncap = 1U << 5,  // VXLAN or GRE header parsed: TunnelHeader valid
  kLayerInnerL2 = 1U << 6,
  kLayerInnerVlan = 1U << 7,
  kLayerInnerL3 = 1U << 8,
  kLayerInnerL4 = 1U << 9,
  kLayerInnerRoce = 1U << 10,
};

struct L2Header {
  std::array<std::uint8_t, 6> dst_mac;
  std::array<std::uint8_t, 6> src_mac;
  std::array<std::uint16_t, 2> vlan_tci;  // outermost tag first; PCP/DEI/VID as on the wire
  std::uint16_t ethertype;                // after the tags: what the payload is
  std::uint8_t vlan_count;
};

// Fragment bits of L3Header::fragment.
enum FragmentFlag : std::uint8_t {
  kFragment = 1U << 0,       // part of a fragmented datagram (MF set or offset non-zero)
  kFirstFragment = 1U << 1,  // offset zero (carries the L4 header, but braid ignores it)
};

struct L3Header {
  // IPv4 addresses occupy the first 4 bytes; the rest stay zero.
  std::array<std::uint8_t, 16> src_addr;
  std::array<std::uint8_t, 16> dst_addr;
  std::uint32_t fragment_id;  // IPv4 identification (16 bits) or IPv6 fragment header id
  std::uint32_t flow_label;   // IPv6 only (20 bits)
  std::uint8_t version;       // 4 or 6 (0: no L3)
  std::uint8_t protocol;      // upper-layer protocol, after IPv6 extension headers
  std::uint8_t fragment;      // FragmentFlag bits
  std::uint8_t ttl;           // IPv4 TTL or IPv6 hop limit
  // IPv4 TOS / IPv6 Traffic Class octet: DSCP in the upper six bits (RFC 2474 §3), ECN in the
  // lower two (RFC 3168 §5). Not hashed: traffic classes (lib/classify) read it.
  std::uint8_t traffic_class;
};

struct L4Header {
  std::uint16_t src_port;  // TCP, UDP, SCTP
  std::uint16_t dst_port;
  std::uint32_t roce_dest_qp;  // RoCEv2 BTH destination QP (24 bits)
  std::uint8_t icmp_type;      // ICMP / ICMPv6
  std::uint8_t icmp_code;
  std::uint8_t roce_opcode;  // RoCEv2 BTH OpCode (first octet): traffic classes read it
};

enum class TunnelKind : std::uint8_t { none, vxlan, gre };

struct TunnelHeader {
  std::uint32_t id;            // VXLAN VNI (24 bits) or GRE key (RFC 2890)
  std::uint16_t gre_protocol;  // GRE protocol type (EtherType of the payload)
  TunnelKind kind;
  bool has_id;  // VXLAN always; GRE when the K bit is set
};

struct FlowKey {
  L2Header l2;
  L3Header l3;
  L4Header l4;
  TunnelHeader tunnel;
  L2Header inner_l2;  // VXLAN and GRE/TEB only; GRE carrying IP has no inner L2
  L3Header inner_l3;
  L4Header inner_l4;
  std::uint16_t layers;  // Layer bits
  ParseStatus status;

  constexpr bool has(Layer layer) const { return (layers & layer) != 0; }

  // Slow-protocol frames (LACP, Marker) are untagged and addressed by EtherType 0x8809
  // (IEEE 802.3 Annex 57A); the engine diverts them to the control thread.
  constexpr bool is_slow_protocol() const {
    return has(kLayerL2) && l2.vlan_count == 0 && l2.ethertype == kEtherTypeSlowProtocols;
  }
};

static_assert(std::is_trivially_copyable_v<FlowKey>);
static_assert(std::is_standard_layout_v<FlowKey>);
static_assert(sizeof(FlowKey) <= 192, "FlowKey should fit in three cache lines");

}  // namespace braid::flow
