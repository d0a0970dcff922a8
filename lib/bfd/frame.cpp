#include "bfd/frame.hpp"

#include <algorithm>

#include "common/inet_checksum.hpp"

namespace braid::bfd {
namespace {

constexpr std::size_t kDestinationMacOffset = 0;
constexpr std::size_t kSourceMacOffset = 6;
constexpr std::size_t kEtherTypeOffset = 12;
constexpr std::uint16_t kVlanIdMask = 0x0fff;

// IPv4 header (RFC 791 3.1).
constexpr std::uint8_t kIpv4VersionIhl = 0x45;  // version 4, 5 words
constexpr std::size_t kIpv4TosOffset = 1;
constexpr std::size_t kIpv4TotalLengthOffset = 2;
constexpr std::size_t kIpv4FlagsFragmentOffset = 6;
constexpr std::size_t kIpv4TtlOffset = 8;
constexpr std::size_t kIpv4ProtocolOffset = 9;
constexpr std::size_t kIpv4ChecksumOffset = 10;
constexpr std::size_t kIpv4SourceOffset = 12;
constexpr std::size_t kIpv4DestinationOffset = 16;
constexpr std::uint16_t kIpv4DontFragment = 0x4000;
constexpr std::uint16_t kIpv4MoreFragments = 0x2000;
constexpr std::uint16_t kIpv4FragmentOffsetMask = 0x1fff;
// IPv6 header (RFC 8200 3).
constexpr std::size_t kIpv6PayloadLengthOffset = 4;
constexpr std::size_t kIpv6NextHeaderOffset = 6;
constexpr std::size_t kIpv6HopLimitOffset = 7;
constexpr std::size_t kIpv6SourceOffset = 8;
constexpr std::size_t kIpv6DestinationOffset = 24;
constexpr std::size_t kIpv6AddressLen = 16;
constexpr std::size_t kIpv4AddressLen = 4;
// UDP header (RFC 768).
constexpr std::size_t kUdpSourcePortOffset = 0;
constexpr std::size_t kUdpDestinationPortOffset = 2;
constexpr std::size_t kUdpLengthOffset = 4;
constexpr std::size_t kUdpChecksumOffset = 6;

constexpr MacAddress kNoMac{};

MacAddress read_mac(ByteSpan bytes, std::size_t offset) {
  MacAddress mac;
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(offset), mac.size(), mac.begin());
  return mac;
}

IpAddress read_ip(ByteSpan bytes, std::size_t offset, bool ipv6) {
  IpAddress ip;
  ip.ipv6 = ipv6;
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(offset),
              ipv6 ? kIpv6AddressLen : kIpv4AddressLen, ip.bytes.begin());
  return ip;
}

std::size_t address_len(const IpAddress& ip) {
  return ip.ipv6 ? kIpv6AddressLen : kIpv4AddressLen;
}

// The UDP pseudo-header sum (RFC 768 for IPv4, RFC 8200 8.1 for IPv6): both addresses, the
// protocol and the UDP length.
std::uint32_t pseudo_header_sum(const IpAddress& source, const IpAddress& destination,
                                std::uint16_t udp_len) {
  std::uint32_t sum = add_checksum(0, ByteSpan(source.bytes.data(), address_len(source)));
  sum = add_checksum(sum, ByteSpan(destination.bytes.data(), address_len(destination)));
  return sum + kIpProtoUdp + udp_len;
}

bool destination_mac_ok(const MacAddress& destination, const ReceiveFilter& filter) {
  if (filter.local_mac == kNoMac) return true;
  if (destination == filter.local_mac) return true;
  return filter.encapsulation == Encapsulation::kMicroBfd && destination == kMicroBfdMac;
}

// The IP layer of a received frame: where UDP starts and how long it may be.
struct IpLayer {
  RejectReason reason = RejectReason::kNone;
  std::size_t udp_offset = 0;
  std::size_t udp_room = 0;  // octets from udp_offset to the end of the IP packet
};

IpLayer parse_ipv4(ByteSpan frame, std::size_t l3, ParsedFrame& out) {
  const ByteSpan ip = frame.subspan(l3);
  if (ip.size() < kIpv4HeaderLen) return {RejectReason::kFrameTooShort};
  const std::size_t header_len = std::size_t{ip[0] & 0x0fu} * 4;
  if ((ip[0] >> 4) != 4 || header_len < kIpv4HeaderLen) return {RejectReason::kBadIpHeader};
  if (ip.size() < header_len) return {RejectReason::kFrameTooShort};
  const std::size_t total_len = load_be16(ip, kIpv4TotalLengthOffset);
  if (total_len < header_len || total_len > ip.size()) return {RejectReason::kBadIpHeader};
  if (fold_checksum(add_checksum(0, ip.first(header_len))) != 0) {
    return {RejectReason::kBadIpChecksum};
  }
  const std::uint16_t fragment = load_be16(ip, kIpv4FlagsFragmentOffset);
  if ((fragment & (kIpv4MoreFragments | kIpv4FragmentOffsetMask)) != 0) {
    return {RejectReason::kIpFragment};
  }
  if (ip[kIpv4TtlOffset] != kTtl) return {RejectReason::kBadTtl};
  if (ip[kIpv4ProtocolOffset] != kIpProtoUdp) return {RejectReason::kNotUdp};
  out.source_ip = read_ip(ip, kIpv4SourceOffset, false);
  out.destination_ip = read_ip(ip, kIpv4DestinationOffset, false);
  return {RejectReason::kNone, l3 + header_len, total_len - header_len};
}

IpLayer parse_ipv6(ByteSpan frame, std::size_t l3, ParsedFrame& out) {
  const ByteSpan ip = frame.subspan(l3);
  if (ip.size() < kIpv6HeaderLen) return {RejectReason::kFrameTooShort};
  if ((ip[0] >> 4) != 6) return {RejectReason::kBadIpHeader};
  const std::size_t payload_len = load_be16(ip, kIpv6PayloadLengthOffset);
  if (payload_len > ip.size() - kIpv6HeaderLen) return {RejectReason::kBadIpHeader};
  if (ip[kIpv6HopLimitOffset] != kTtl) return {RejectReason::kBadTtl};
  if (ip[kIpv6NextHeaderOffset] != kIpProtoUdp) return {RejectReason::kNotUdp};
  out.source_ip = read_ip(ip, kIpv6SourceOffset, true);
  out.destination_ip = read_ip(ip, kIpv6DestinationOffset, true);
  return {RejectReason::kNone, l3 + kIpv6HeaderLen, payload_len};
}

}  // namespace

const char* to_string(Encapsulation encapsulation) {
  return encapsulation == Encapsulation::kMicroBfd ? "micro_bfd" : "single_hop";
}

std::uint16_t udp_port(Encapsulation encapsulation) {
  return encapsulation == Encapsulation::kMicroBfd ? kMicroBfdPort : kSingleHopPort;
}

IpAddress IpAddress::v4(std::uint32_t address) {
  IpAddress ip;
  store_be32(MutableByteSpan(ip.bytes), 0, address);
  return ip;
}

IpAddress IpAddress::v6(const std::array<std::uint8_t, 16>& address) {
  IpAddress ip;
  ip.ipv6 = true;
  ip.bytes = address;
  return ip;
}

std::uint32_t IpAddress::v4_host_order() const {
  return load_be32(ByteSpan(bytes), 0);
}

std::uint16_t source_port_for(std::uint32_t local_discriminator) {
  constexpr std::uint32_t kRange = std::uint32_t{kMaxSourcePort} - kMinSourcePort + 1;
  return static_cast<std::uint16_t>(kMinSourcePort + local_discriminator % kRange);
}

const char* check_frame_spec(const FrameSpec& spec) {
  if (spec.source_ip.ipv6 != spec.destination_ip.ipv6) {
    return "source and destination IP addresses differ in family";
  }
  if (spec.source_port < kMinSourcePort) {
    return "the UDP source port must be in 49152-65535 (RFC 5881 4)";
  }
  if ((spec.source_mac[0] & 0x01) != 0) return "the source MAC is a group address";
  if (spec.encapsulation == Encapsulation::kSingleHop && spec.destination_mac == kNoMac) {
    return "single-hop BFD needs the partner's MAC";
  }
  return "";
}

Frame build_frame(const FrameSpec& spec, const ControlPacket& packet) {
  Frame frame;
  const MutableByteSpan bytes(frame.bytes);
  const MacAddress& destination =
      spec.encapsulation == Encapsulation::kMicroBfd ? kMicroBfdMac : spec.destination_mac;
  std::copy(destination.begin(), destination.end(), frame.bytes.begin() + kDestinationMacOffset);
  std::copy(spec.source_mac.begin(), spec.source_mac.end(), frame.bytes.begin() + kSourceMacOffset);
  const bool ipv6 = spec.source_ip.ipv6;
  store_be16(bytes, kEtherTypeOffset, ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4);

  constexpr std::size_t l3 = kEthernetHeaderLen;
  const std::size_t l4 = l3 + (ipv6 ? kIpv6HeaderLen : kIpv4HeaderLen);
  constexpr auto udp_len = static_cast<std::uint16_t>(kUdpHeaderLen + kControlPacketLen);
  frame.len = l4 + udp_len;
  const MutableByteSpan ip = bytes.subspan(l3);
  if (ipv6) {
    // Version 6, traffic class CS6, no flow label.
    store_be32(ip, 0, (std::uint32_t{6} << 28) | (std::uint32_t{kTrafficClassCs6} << 20));
    store_be16(ip, kIpv6PayloadLengthOffset, udp_len);
    ip[kIpv6NextHeaderOffset] = kIpProtoUdp;
    ip[kIpv6HopLimitOffset] = kTtl;
    std::copy_n(spec.source_ip.bytes.begin(), kIpv6AddressLen, ip.begin() + kIpv6SourceOffset);
    std::copy_n(spec.destination_ip.bytes.begin(), kIpv6AddressLen,
                ip.begin() + kIpv6DestinationOffset);
  } else {
    ip[0] = kIpv4VersionIhl;
    ip[kIpv4TosOffset] = kTrafficClassCs6;
    store_be16(ip, kIpv4TotalLengthOffset, static_cast<std::uint16_t>(kIpv4HeaderLen + udp_len));
    store_be16(ip, kIpv4FlagsFragmentOffset, kIpv4DontFragment);
    ip[kIpv4TtlOffset] = kTtl;
    ip[kIpv4ProtocolOffset] = kIpProtoUdp;
    std::copy_n(spec.source_ip.bytes.begin(), kIpv4AddressLen, ip.begin() + kIpv4SourceOffset);
    std::copy_n(spec.destination_ip.bytes.begin(), kIpv4AddressLen,
                ip.begin() + kIpv4DestinationOffset);
    store_be16(ip, kIpv4ChecksumOffset, fold_checksum(add_checksum(0, ip.first(kIpv4HeaderLen))));
  }

  const MutableByteSpan udp = bytes.subspan(l4, udp_len);
  store_be16(udp, kUdpSourcePortOffset, spec.source_port);
  store_be16(udp, kUdpDestinationPortOffset, udp_port(spec.encapsulation));
  store_be16(udp, kUdpLengthOffset, udp_len);
  const ControlPacketBytes payload = encode_control_packet(packet);
  std::copy(payload.begin(), payload.end(), udp.begin() + kUdpHeaderLen);
  std::uint16_t checksum = fold_checksum(
      add_checksum(pseudo_header_sum(spec.source_ip, spec.destination_ip, udp_len), udp));
  if (checksum == 0) checksum = 0xffff;  // RFC 768: a computed zero is sent as all ones
  store_be16(udp, kUdpChecksumOffset, checksum);
  return frame;
}

ParsedFrame parse_frame(ByteSpan frame, const ReceiveFilter& filter) {
  ParsedFrame out;
  auto reject = [&out](RejectReason reason) {
    out.reason = reason;
    return out;
  };
  if (frame.size() < kEthernetHeaderLen) return reject(RejectReason::kFrameTooShort);
  out.destination_mac = read_mac(frame, kDestinationMacOffset);
  out.source_mac = read_mac(frame, kSourceMacOffset);
  std::size_t l3 = kEthernetHeaderLen;
  std::uint16_t ether_type = load_be16(frame, kEtherTypeOffset);
  if (ether_type == kEtherTypeVlan) {
    if (frame.size() < kEthernetHeaderLen + kVlanTagLen)
      return reject(RejectReason::kFrameTooShort);
    out.vlan_id = static_cast<std::uint16_t>(load_be16(frame, kEtherTypeOffset + 2) & kVlanIdMask);
    ether_type = load_be16(frame, kEtherTypeOffset + kVlanTagLen);
    l3 += kVlanTagLen;
  }
  if (!destination_mac_ok(out.destination_mac, filter)) {
    return reject(RejectReason::kBadDestinationMac);
  }
  IpLayer ip;
  if (ether_type == kEtherTypeIpv4) {
    ip = parse_ipv4(frame, l3, out);
  } else if (ether_type == kEtherTypeIpv6) {
    ip = parse_ipv6(frame, l3, out);
  } else {
    return reject(RejectReason::kBadEthertype);
  }
  if (ip.reason != RejectReason::kNone) return reject(ip.reason);
  if (filter.local_ip && out.destination_ip != *filter.local_ip) {
    return reject(RejectReason::kBadDestinationIp);
  }

  if (ip.udp_room < kUdpHeaderLen) return reject(RejectReason::kBadUdpLength);
  const ByteSpan udp_header = frame.subspan(ip.udp_offset, kUdpHeaderLen);
  out.source_port = load_be16(udp_header, kUdpSourcePortOffset);
  if (load_be16(udp_header, kUdpDestinationPortOffset) != udp_port(filter.encapsulation)) {
    return reject(RejectReason::kBadUdpPort);
  }
  const std::uint16_t udp_len = load_be16(udp_header, kUdpLengthOffset);
  if (udp_len < kUdpHeaderLen || udp_len > ip.udp_room) return reject(RejectReason::kBadUdpLength);
  const ByteSpan udp = frame.subspan(ip.udp_offset, udp_len);
  const std::uint16_t checksum = load_be16(udp, kUdpChecksumOffset);
  // IPv4 may send none (RFC 768); over IPv6 the checksum is mandatory (RFC 8200 8.1).
  if (checksum == 0 && out.source_ip.ipv6) return reject(RejectReason::kBadUdpChecksum);
  if (checksum != 0 &&
      fold_checksum(
          add_checksum(pseudo_header_sum(out.source_ip, out.destination_ip, udp_len), udp)) != 0) {
    return reject(RejectReason::kBadUdpChecksum);
  }
  out.reason = decode_control_packet(udp.subspan(kUdpHeaderLen), out.packet);
  return out;
}

}  // namespace braid::bfd
