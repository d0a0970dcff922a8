// Header walk for parse_flow_key. Every read is preceded by a length check against the span that
// is left; header lengths come from the standards cited next to each constant.
#include "flow/parser.hpp"

#include <algorithm>
#include <cstring>

#include "flow/vlan_tags.hpp"

namespace braid::flow {
namespace {

constexpr std::size_t kIpv4MinHeaderBytes = 20;      // RFC 791 §3.1, IHL = 5
constexpr std::size_t kIpv6HeaderBytes = 40;         // RFC 8200 §3
constexpr std::size_t kIpv6ExtUnitBytes = 8;         // RFC 8200 §4.3: Hdr Ext Len in 8-octet units
constexpr std::size_t kIpv6FragmentHeaderBytes = 8;  // RFC 8200 §4.5
constexpr std::size_t kMaxIpv6ExtHeaders = 8;        // RFC 8200 §4.1 defines six kinds; cap chains
constexpr std::size_t kTcpMinHeaderBytes = 20;       // RFC 9293 §3.1
constexpr std::size_t kUdpHeaderBytes = 8;           // RFC 768
constexpr std::size_t kSctpCommonHeaderBytes = 12;   // RFC 9260 §3.1
constexpr std::size_t kIcmpHeaderBytes = 4;          // type, code, checksum (RFC 792, RFC 4443)
constexpr std::size_t kBthBytes = 12;                // InfiniBand Base Transport Header
constexpr std::size_t kBthDestQpOffset = 4;          // reserved octet + 24-bit DestQP
constexpr std::uint32_t kBthDestQpMask = 0x00FFFFFF;
constexpr std::size_t kVxlanHeaderBytes = 8;    // RFC 7348 §5
constexpr std::uint8_t kVxlanFlagVni = 0x08;    // the I flag: VNI valid
constexpr std::size_t kGreBaseHeaderBytes = 4;  // RFC 2784 §2.1
constexpr std::uint16_t kGreFlagChecksum = 0x8000;
constexpr std::uint16_t kGreFlagKey = 0x2000;       // RFC 2890 §2
constexpr std::uint16_t kGreFlagSequence = 0x1000;  // RFC 2890 §2
constexpr std::size_t kGreOptionBytes = 4;
constexpr std::uint16_t kIpv4FlagMoreFragments = 0x2000;
constexpr std::uint16_t kIpv4FragmentOffsetMask = 0x1FFF;
constexpr std::uint16_t kIpv6FragmentOffsetShift = 3;
constexpr std::uint16_t kIpv6FlagMoreFragments = 0x0001;
constexpr std::uint32_t kIpv6FlowLabelMask = 0x000FFFFF;

template <std::size_t N>
void copy_bytes(std::array<std::uint8_t, N>& to, ByteSpan from, std::size_t offset,
                std::size_t count) {
  std::memcpy(to.data(), from.data() + offset, count);
}

// Where one depth of headers (outer or inner) is stored and which Layer bits mark it.
struct Level {
  L2Header* l2;
  L3Header* l3;
  L4Header* l4;
  std::uint16_t l2_bit;
  std::uint16_t vlan_bit;
  std::uint16_t l3_bit;
  std::uint16_t l4_bit;
  std::uint16_t roce_bit;
  bool outer;
};

class FrameParser {
 public:
  explicit FrameParser(FlowKey& key) : key_(key) {}

  void run(ByteSpan frame) {
    // Every field starts at zero (hash policies rely on it). Zeroing member by member lets the
    // compiler use a few vector stores; `key_ = FlowKey{}` became a `rep stos` whose start-up
    // cost was a third of the parse time of a 64-byte frame.
    key_.l2 = {};
    key_.l3 = {};
    key_.l4 = {};
    key_.tunnel = {};
    key_.inner_l2 = {};
    key_.inner_l3 = {};
    key_.inner_l4 = {};
    key_.layers = 0;
    key_.status = from_ethernet(frame, outer_level());
  }

 private:
  Level outer_level() {
    return {&key_.l2, &key_.l3, &key_.l4,   kLayerL2, kLayerVlan,
            kLayerL3, kLayerL4, kLayerRoce, true};
  }
  Level inner_level() {
    return {&key_.inner_l2, &key_.inner_l3, &key_.inner_l4,  kLayerInnerL2, kLayerInnerVlan,
            kLayerInnerL3,  kLayerInnerL4,  kLayerInnerRoce, false};
  }

  ParseStatus from_ethernet(ByteSpan bytes, const Level& level) {
    if (ParseStatus status = parse_l2(bytes, level); status != ParseStatus::ok) return status;
    if (level.l2->ethertype == kEtherTypeSlowProtocols) return ParseStatus::ok;
    return from_l3(bytes, level.l2->ethertype, level);
  }

  ParseStatus parse_l2(ByteSpan& bytes, const Level& level) {
    if (bytes.size() < kEthernetHeaderBytes) return ParseStatus::truncated_l2;
    L2Header& l2 = *level.l2;
    copy_bytes(l2.dst_mac, bytes, 0, l2.dst_mac.size());
    copy_bytes(l2.src_mac, bytes, l2.dst_mac.size(), l2.src_mac.size());
    std::size_t offset = kEthernetHeaderBytes;
    std::uint16_t ethertype = load_be16(bytes, offset - 2);
    key_.layers |= level.l2_bit;
    while (is_vlan_tpid(ethertype)) {
      l2.ethertype = ethertype;
      if (l2.vlan_count == kMaxVlanTags) return ParseStatus::vlan_depth_exceeded;
      if (bytes.size() < offset + kVlanTagBytes) return ParseStatus::truncated_l2;
      l2.vlan_tci[l2.vlan_count++] = load_be16(bytes, offset);
      ethertype = load_be16(bytes, offset + 2);
      offset += kVlanTagBytes;
      key_.layers |= level.vlan_bit;
    }
    l2.ethertype = ethertype;
    bytes = bytes.subspan(offset);
    return ParseStatus::ok;
  }

  ParseStatus from_l3(ByteSpan bytes, std::uint16_t ethertype, const Level& level) {
    ParseStatus status = ParseStatus::unknown_ethertype;
    if (ethertype == kEtherTypeIpv4) {
      status = parse_ipv4(bytes, level);
    } else if (ethertype == kEtherTypeIpv6) {
      status = parse_ipv6(bytes, level);
    }
    // Fragments stop here: only the first carries the L4 (or tunnel) header, and every fragment
    // of one datagram must hash alike.
    if (status != ParseStatus::ok || level.l3->fragment != 0) return status;
    return from_l4(bytes, level);
  }

  ParseStatus parse_ipv4(ByteSpan& bytes, const Level& level) {
    if (bytes.size() < kIpv4MinHeaderBytes) return ParseStatus::truncated_l3;
    if ((bytes[0] >> 4) != 4) return ParseStatus::bad_ip_version;
    const std::size_t header_bytes = std::size_t{bytes[0] & 0x0FU} * 4;
    if (header_bytes < kIpv4MinHeaderBytes) return ParseStatus::bad_ipv4_ihl;
    if (bytes.size() < header_bytes) return ParseStatus::truncated_l3;
    const std::size_t total_bytes = load_be16(bytes, 2);
    if (total_bytes < header_bytes) return ParseStatus::bad_ipv4_length;

    L3Header& l3 = *level.l3;
    l3.version = 4;
    l3.traffic_class = bytes[1];
    l3.fragment_id = load_be16(bytes, 4);
    l3.ttl = bytes[8];
    l3.protocol = bytes[9];
    copy_bytes(l3.src_addr, bytes, 12, 4);
    copy_bytes(l3.dst_addr, bytes, 16, 4);
    const std::uint16_t fragment_field = load_be16(bytes, 6);
    const bool first = (fragment_field & kIpv4FragmentOffsetMask) == 0;
    if ((fragment_field & kIpv4FlagMoreFragments) != 0 || !first) {
      l3.fragment = kFragment | (first ? kFirstFragment : 0);
    }
    key_.layers |= level.l3_bit;
    // Short frames carry Ethernet padding (IEEE 802.3 §4.2.3.3): stop at the datagram's end.
    const std::size_t end = std::min(bytes.size(), total_bytes);
    bytes = bytes.subspan(header_bytes, end - header_bytes);
    return ParseStatus::ok;
  }

  ParseStatus parse_ipv6(ByteSpan& bytes, const Level& level) {
    if (bytes.size() < kIpv6HeaderBytes) return ParseStatus::truncated_l3;
    if ((bytes[0] >> 4) != 6) return ParseStatus::bad_ip_version;

    L3Header& l3 = *level.l3;
    l3.version = 6;
    l3.flow_label = load_be32(bytes, 0) & kIpv6FlowLabelMask;
    l3.traffic_class = static_cast<std::uint8_t>(load_be16(bytes, 0) >> 4);  // RFC 8200 §3
    l3.protocol = bytes[6];
    l3.ttl = bytes[7];
    copy_bytes(l3.src_addr, bytes, 8, 16);
    copy_bytes(l3.dst_addr, bytes, 24, 16);
    key_.layers |= level.l3_bit;

    // Payload length 0 means a jumbogram (RFC 2675): the frame's end is all we know.
    const std::size_t payload_bytes = load_be16(bytes, 4);
    const std::size_t end = payload_bytes == 0
                                ? bytes.size()
                                : std::min(bytes.size(), kIpv6HeaderBytes + payload_bytes);
    std::size_t offset = kIpv6HeaderBytes;
    for (std::size_t count = 0;; ++count) {
      const std::uint8_t next = l3.protocol;
      const bool is_extension = next == kIpProtoHopByHop || next == kIpProtoRouting ||
                                next == kIpProtoDestOptions || next == kIpProtoFragment;
      if (!is_extension) break;
      // RFC 8200 §4.1: hop-by-hop options may only follow the IPv6 header directly.
      if (count == kMaxIpv6ExtHeaders || (next == kIpProtoHopByHop && count != 0)) {
        return ParseStatus::bad_ipv6_ext;
      }
      if (end < offset + kIpv6ExtUnitBytes) return ParseStatus::truncated_l3;
      if (next == kIpProtoFragment) {
        const std::uint16_t offset_field = load_be16(bytes, offset + 2);
        l3.fragment_id = load_be32(bytes, offset + 4);
        l3.protocol = bytes[offset];
        offset += kIpv6FragmentHeaderBytes;
        const bool first = (offset_field >> kIpv6FragmentOffsetShift) == 0;
        // An atomic fragment (offset 0, M clear; RFC 6946) is a whole datagram: keep going.
        if ((offset_field & kIpv6FlagMoreFragments) != 0 || !first) {
          l3.fragment = kFragment | (first ? kFirstFragment : 0);
          break;
        }
        continue;
      }
      const std::size_t header_bytes = (std::size_t{bytes[offset + 1]} + 1) * kIpv6ExtUnitBytes;
      if (end < offset + header_bytes) return ParseStatus::truncated_l3;
      l3.protocol = bytes[offset];
      offset += header_bytes;
    }
    bytes = bytes.subspan(offset, end - offset);
    return ParseStatus::ok;
  }

  ParseStatus from_l4(ByteSpan bytes, const Level& level) {
    L4Header& l4 = *level.l4;
    const std::uint8_t protocol = level.l3->protocol;
    std::size_t header_bytes = 0;
    switch (protocol) {
      case kIpProtoTcp:
        header_bytes = kTcpMinHeaderBytes;
        break;
      case kIpProtoUdp:
        header_bytes = kUdpHeaderBytes;
        break;
      case kIpProtoSctp:
        header_bytes = kSctpCommonHeaderBytes;
        break;
      case kIpProtoIcmp:
      case kIpProtoIcmpv6:
        header_bytes = kIcmpHeaderBytes;
        break;
      case kIpProtoGre:
        return level.outer ? parse_gre(bytes) : ParseStatus::unknown_l4;
      default:
        return ParseStatus::unknown_l4;
    }
    if (bytes.size() < header_bytes) return ParseStatus::truncated_l4;
    if (protocol == kIpProtoIcmp || protocol == kIpProtoIcmpv6) {
      l4.icmp_type = bytes[0];
      l4.icmp_code = bytes[1];
    } else {
      l4.src_port = load_be16(bytes, 0);
      l4.dst_port = load_be16(bytes, 2);
    }
    key_.layers |= level.l4_bit;
    if (protocol != kIpProtoUdp) return ParseStatus::ok;

    ByteSpan payload = bytes.subspan(kUdpHeaderBytes);
    if (l4.dst_port == kUdpPortRocev2) {
      if (payload.size() < kBthBytes) return ParseStatus::truncated_l4;
      l4.roce_opcode = payload[0];
      l4.roce_dest_qp = load_be32(payload, kBthDestQpOffset) & kBthDestQpMask;
      key_.layers |= level.roce_bit;
      return ParseStatus::ok;
    }
    if (l4.dst_port == kUdpPortVxlan && level.outer) return parse_vxlan(payload);
    return ParseStatus::ok;
  }

  ParseStatus parse_vxlan(ByteSpan bytes) {
    if (bytes.size() < kVxlanHeaderBytes) return ParseStatus::truncated_tunnel;
    if ((bytes[0] & kVxlanFlagVni) == 0) return ParseStatus::bad_tunnel;
    key_.tunnel.kind = TunnelKind::vxlan;
    key_.tunnel.id = load_be32(bytes, 4) >> 8;
    key_.tunnel.has_id = true;
    key_.tunnel.gre_protocol = 0;
    key_.layers |= kLayerEncap;
    return from_ethernet(bytes.subspan(kVxlanHeaderBytes), inner_level());
  }

  ParseStatus parse_gre(ByteSpan bytes) {
    if (bytes.size() < kGreBaseHeaderBytes) return ParseStatus::truncated_tunnel;
    const std::uint16_t flags = load_be16(bytes, 0);
    // RFC 2784 §2.5 + RFC 2890: only C, K and S may be set, version must be 0 (no RFC 1701
    // routing, no PPTP's enhanced GRE).
    constexpr std::uint16_t kKnownFlags = kGreFlagChecksum | kGreFlagKey | kGreFlagSequence;
    if ((flags & ~kKnownFlags) != 0) return ParseStatus::bad_tunnel;
    const std::size_t checksum_bytes = (flags & kGreFlagChecksum) != 0 ? kGreOptionBytes : 0;
    const bool has_key = (flags & kGreFlagKey) != 0;
    const std::size_t header_bytes = kGreBaseHeaderBytes + checksum_bytes +
                                     (has_key ? kGreOptionBytes : 0) +
                                     ((flags & kGreFlagSequence) != 0 ? kGreOptionBytes : 0);
    if (bytes.size() < header_bytes) return ParseStatus::truncated_tunnel;
    key_.tunnel.kind = TunnelKind::gre;
    key_.tunnel.gre_protocol = load_be16(bytes, 2);
    key_.tunnel.has_id = has_key;
    key_.tunnel.id = has_key ? load_be32(bytes, kGreBaseHeaderBytes + checksum_bytes) : 0;
    key_.layers |= kLayerEncap;
    const ByteSpan payload = bytes.subspan(header_bytes);
    if (key_.tunnel.gre_protocol == kEtherTypeTeb) return from_ethernet(payload, inner_level());
    return from_l3(payload, key_.tunnel.gre_protocol, inner_level());
  }

  FlowKey& key_;
};

}  // namespace

void parse_flow_key(ByteSpan frame, FlowKey& key) {
  FrameParser(key).run(frame);
}

}  // namespace braid::flow
