// Which frames a bond member's ingress hands to the protocol loop as BFD (doc/health.md#bfd):
// RFC 7130 micro-BFD (UDP 6784, to 01-00-5E-90-00-01 or the member's MAC) or RFC 5881
// single-hop (UDP 3784, to the member's MAC), IPv4 or IPv6, after at most one 802.1Q tag. A
// data frame costs one test of the destination MAC: frames to the hosts behind the bond are
// addressed to their MACs, never to the member's or the BFD group address, so only those reach
// the EtherType and UDP checks. Everything else about the frame (checksums, TTL, addresses, the
// Control packet) the protocol loop checks (lib/bfd/frame.hpp), where a refusal is counted.
// Pure (no DPDK): the frame is bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/token_bucket.hpp"

namespace braid::bond {

// What the workers divert for one bond: nothing while udp_port is 0.
struct BfdDivertRule {
  std::uint16_t udp_port = 0;     // 6784 micro-BFD, 3784 single-hop; 0: BFD is off
  bool accept_group_mac = false;  // micro-BFD: 01-00-5E-90-00-01 too
};

// A MAC as one integer, as source_address_key (slow_policer.hpp) makes it.
inline std::uint64_t mac_key(const std::uint8_t* mac) {
  std::uint64_t key = 0;
  for (std::size_t i = 0; i < 6; ++i)
    key = key << 8 | mac[i];
  return key;
}

// RFC 7130 2.3: the micro-BFD group address 01-00-5E-90-00-01.
inline constexpr std::uint64_t kMicroBfdMacKey = 0x01005e900001;

// `frame`: `length` readable bytes from the Ethernet header; `local_mac`: the member's MAC
// (mac_key; 0: none known yet, only the group address matches).
inline bool is_bfd_frame(const std::uint8_t* frame, std::size_t length, const BfdDivertRule& rule,
                         std::uint64_t local_mac) {
  constexpr std::size_t kEtherTypeOffset = 12;
  constexpr std::size_t kEthernetHeaderLen = 14;
  constexpr std::size_t kVlanTagLen = 4;
  constexpr std::size_t kIpv4HeaderLen = 20;
  constexpr std::size_t kIpv6HeaderLen = 40;
  constexpr std::size_t kUdpHeaderLen = 8;
  constexpr std::uint8_t kIpProtoUdp = 17;
  if (rule.udp_port == 0 || length < kEthernetHeaderLen + kIpv4HeaderLen + kUdpHeaderLen)
    return false;
  // The destination MAC first: the one test a data frame pays.
  const std::uint64_t destination = mac_key(frame);
  if ((frame[0] & 0x01) != 0) {  // a group address
    if (!rule.accept_group_mac || destination != kMicroBfdMacKey) return false;
  } else if (destination != local_mac || local_mac == 0) {
    return false;
  }
  std::size_t l3 = kEthernetHeaderLen;
  std::uint16_t ether_type =
      static_cast<std::uint16_t>(frame[kEtherTypeOffset] << 8 | frame[kEtherTypeOffset + 1]);
  if (ether_type == 0x8100) {  // IEEE 802.1Q: one tag at most
    ether_type = static_cast<std::uint16_t>(frame[kEtherTypeOffset + kVlanTagLen] << 8 |
                                            frame[kEtherTypeOffset + kVlanTagLen + 1]);
    l3 += kVlanTagLen;
  }
  std::size_t l4 = 0;
  if (ether_type == 0x0800) {
    if (length < l3 + kIpv4HeaderLen) return false;
    const std::uint8_t* ip = frame + l3;
    // A later fragment's first bytes are payload, not a UDP header.
    const bool later_fragment = ((ip[6] & 0x1f) | ip[7]) != 0;
    if (ip[9] != kIpProtoUdp || later_fragment) return false;
    l4 = l3 + std::size_t{ip[0] & 0x0fu} * 4;
  } else if (ether_type == 0x86dd) {
    if (frame[l3 + 6] != kIpProtoUdp) return false;  // braid's peers send no extension headers
    l4 = l3 + kIpv6HeaderLen;
  } else {
    return false;
  }
  if (length < l4 + kUdpHeaderLen) return false;
  return static_cast<std::uint16_t>(frame[l4 + 2] << 8 | frame[l4 + 3]) == rule.udp_port;
}

// Per (worker, member RX queue), as slow_policer.hpp does for LACPDUs: frames from the
// session's peer (the source MAC of the last packet its session took; 0: none yet) have a
// limit of their own, every other source shares a second one. Each is far above what one
// session sends (100 a second at braid's fastest 10 ms, a few more for Poll/Final), so a flood
// to the BFD port costs the protocol loop a bounded share, leaves the ring open for LACPDUs and
// does not starve the peer's own packets (which would take the session down).
inline constexpr std::uint64_t kBfdFramesPerSecond = 512;
inline constexpr std::uint64_t kBfdFramesBurst = 64;

class BfdPolicer {
 public:
  explicit BfdPolicer(std::uint64_t ticks_per_second)
      : peer_(kBfdFramesPerSecond, ticks_per_second, kBfdFramesBurst),
        others_(kBfdFramesPerSecond, ticks_per_second, kBfdFramesBurst) {}
  // `frame`: from the Ethernet header (at least 12 bytes); `peer_source`: mac_key of the peer.
  bool admit(const std::uint8_t* frame, std::uint64_t peer_source, std::uint64_t now) {
    const bool from_peer = peer_source != 0 && mac_key(frame + 6) == peer_source;
    return (from_peer ? peer_ : others_).take(now);
  }

 private:
  TokenBucket peer_;
  TokenBucket others_;
};

}  // namespace braid::bond
