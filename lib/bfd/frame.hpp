// Whole BFD frames: Ethernet, IPv4 or IPv6, UDP and the Control packet, for the two
// encapsulations braid speaks on a member link:
//   - RFC 7130 micro-BFD: one session per LAG member, UDP port 6784, towards the dedicated MAC
//     01-00-5E-90-00-01 (a partner also gets frames addressed to its own MAC);
//   - RFC 5881 single-hop BFD: UDP port 3784 between configured unicast addresses, for partners
//     that only speak classic BFD on an interface.
// Both send TTL / Hop Limit 255 and check it on receipt (RFC 5881 5, GTSM); checksums are
// computed on build and verified on parse (the UDP checksum is mandatory over IPv6).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "bfd/constants.hpp"
#include "bfd/control_packet.hpp"
#include "bfd/reject_reason.hpp"
#include "common/bytes.hpp"

namespace braid::bfd {

enum class Encapsulation : std::uint8_t { kMicroBfd, kSingleHop };
const char* to_string(Encapsulation encapsulation);   // "micro_bfd", "single_hop"
std::uint16_t udp_port(Encapsulation encapsulation);  // 6784, 3784

// An IPv4 or IPv6 address; IPv4 uses the first 4 octets, the rest stay zero.
struct IpAddress {
  bool ipv6 = false;
  std::array<std::uint8_t, 16> bytes{};

  static IpAddress v4(std::uint32_t address);  // host order: 0x0a000001 is 10.0.0.1
  static IpAddress v6(const std::array<std::uint8_t, 16>& address);
  std::uint32_t v4_host_order() const;
  bool operator==(const IpAddress&) const = default;
};

struct FrameSpec {
  Encapsulation encapsulation = Encapsulation::kMicroBfd;
  MacAddress source_mac{};
  // Single-hop only: the partner's MAC. Micro-BFD always sends to kMicroBfdMac.
  MacAddress destination_mac{};
  IpAddress source_ip;
  IpAddress destination_ip;                    // the same family as source_ip
  std::uint16_t source_port = kMinSourcePort;  // 49152-65535 (RFC 5881 4): source_port_for()
};

// The same source port for every packet of a session, in the range RFC 5881 4 requires, derived
// from its local discriminator so that sessions on one host differ.
std::uint16_t source_port_for(std::uint32_t local_discriminator);

// Empty when `spec` can be sent; otherwise what is wrong with it ("source and destination IP
// differ in family", ...), for the config layer's error messages.
const char* check_frame_spec(const FrameSpec& spec);

struct Frame {
  std::array<std::uint8_t, kMaxFrameLen> bytes{};
  std::size_t len = 0;
  ByteSpan span() const { return ByteSpan(bytes.data(), len); }
};

// Builds an untagged frame (the adapter adds a VLAN tag where the member needs one). `spec`
// must pass check_frame_spec.
Frame build_frame(const FrameSpec& spec, const ControlPacket& packet);

// What a received frame must match to be ours.
struct ReceiveFilter {
  Encapsulation encapsulation = Encapsulation::kMicroBfd;
  // Our MAC on the member. Micro-BFD accepts kMicroBfdMac or this; single-hop only this. All
  // zero: any destination MAC.
  MacAddress local_mac{};
  // Our address; empty: any destination address.
  std::optional<IpAddress> local_ip;
};

struct ParsedFrame {
  RejectReason reason = RejectReason::kNone;
  MacAddress source_mac{};
  MacAddress destination_mac{};
  std::optional<std::uint16_t> vlan_id;  // the 802.1Q tag's VID, when tagged
  IpAddress source_ip;
  IpAddress destination_ip;
  std::uint16_t source_port = 0;
  ControlPacket packet;  // valid when reason is kNone
};

// Parses and checks every header, then decodes the Control packet (decode_control_packet).
// Accepts at most one 802.1Q tag, IPv4 options, Ethernet padding after the IP packet, and an
// IPv4 UDP checksum of zero (none sent, RFC 768). Never reads outside `frame`.
ParsedFrame parse_frame(ByteSpan frame, const ReceiveFilter& filter);

}  // namespace braid::bfd
