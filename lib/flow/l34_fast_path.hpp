// The common case of the l34 policy without building a FlowKey: an unfragmented IPv4 datagram
// with a 20-byte header, or an IPv6 packet without extension headers, carrying TCP or UDP (RoCEv2
// too, by its QP), untagged or behind one or two VLAN tags (vlan_tags.hpp). It reads the few
// fields the policy hashes straight from the frame and feeds the same hash functions hash_l34
// (flow_hash.cpp) uses, so both paths give the same hash for a frame (a unit test checks this over
// every truncation and random corruption). Anything else returns false and takes the full parser.
//
// The paths have no branch but "accepted": real traffic mixes TCP and UDP packet by packet,
// and a branch on the protocol was mispredicted about every other packet. Their checks are a few
// compares and their hashes 32-bit multiplies (ipv4_l34_hash.hpp, ipv6_l34_hash.hpp).
// l34_fast_path_x4.hpp does the same for four frames at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/bytes.hpp"
#include "flow/ipv4_l34_hash.hpp"
#include "flow/ipv6_l34_hash.hpp"
#include "flow/vlan_tags.hpp"

namespace braid::flow {

inline constexpr std::uint16_t kRocev2Port = 4791;  // IANA: RoCEv2

// Bytes 12..23 of an untagged frame: EtherType IPv4, version 4 with a 20-byte header, and not a
// fragment (MF clear, offset zero: fragments hash without ports, the parser's job). `datagram`:
// its length, ended by the total length (Ethernet padding follows) or by the frame's end. No
// branch: the callers combine it with their own checks. Needs 24 bytes.
inline bool plain_ipv4_header(ByteSpan frame, std::size_t& datagram) {
  constexpr std::size_t kL3 = 14;
  const std::uint8_t* bytes = frame.data();
  datagram = std::min<std::size_t>(frame.size() - kL3, load_be16(frame, kL3 + 2));
  return (bytes[12] == 0x08) & (bytes[13] == 0x00) & (bytes[kL3] == 0x45) &
         ((load_be16(frame, kL3 + 6) & 0x3FFF) == 0);
}

inline bool try_hash_l34_ipv4(ByteSpan frame, std::uint32_t& hash) {
  constexpr std::size_t kL3 = 14;  // untagged Ethernet
  constexpr std::size_t kL4 = kL3 + 20;
  if (frame.size() < kL4 + 8) return false;
  const std::uint8_t* bytes = frame.data();
  std::size_t datagram = 0;
  const bool ipv4 = plain_ipv4_header(frame, datagram);
  const std::uint8_t protocol = bytes[kL3 + 9];
  const bool tcp = protocol == 6;
  const bool udp = protocol == 17;
  const std::size_t l4_bytes = 8 + 12 * std::size_t{tcp};
  const std::uint32_t ports = load_be32(frame, kL4);
  const bool rocev2 = udp & ((ports & 0xFFFF) == kRocev2Port);
  const bool accepted = ipv4 & (tcp | udp) & (datagram >= 20 + l4_bytes) & !rocev2;
  if (!accepted) return false;
  hash = hash_ipv4_l34(ipv4_address_word(bytes + kL3 + 12), ipv4_address_word(bytes + kL3 + 16),
                       ports);
  return true;
}

// IPv6 TCP, UDP and RoCEv2 (by its QP, the BTH whole), without a branch but "accepted": the BTH's
// DestQP word is read in place of the ports for RoCEv2, 12 bytes further on.
inline bool try_hash_l34_ipv6(ByteSpan frame, std::uint32_t& hash) {
  constexpr std::size_t kL3 = 14;
  constexpr std::size_t kL4 = kL3 + 40;
  constexpr std::size_t kBthBytes = 12;
  constexpr std::size_t kDestQpOffset = 8 + 4;  // past the UDP header: a reserved octet, the QP
  if (frame.size() < kL4 + 8) return false;
  const std::uint8_t* bytes = frame.data();
  const bool ipv6 = (bytes[12] == 0x86) & (bytes[13] == 0xdd) & ((bytes[kL3] >> 4) == 6);
  // The next header must be TCP or UDP itself: extension headers are the parser's job.
  const std::uint8_t next_header = bytes[kL3 + 6];
  const bool tcp = next_header == 6;
  const bool udp = next_header == 17;
  const std::uint32_t ports = load_be32(frame, kL4);
  const bool rocev2 = udp & ((ports & 0xFFFF) == kRocev2Port);
  // UDP's 8 bytes; TCP's 20; RoCEv2's UDP header and its 12-byte BTH, 20 too.
  const bool twenty = tcp | rocev2;
  const std::size_t l4_bytes = 8 + kBthBytes * std::size_t{twenty};
  // Payload length 0 is a jumbogram (RFC 2675): the frame's end bounds it.
  const std::size_t payload = load_be16(frame, kL3 + 4);
  const std::size_t available = frame.size() - kL4;
  const std::size_t bounded = payload == 0 ? available : std::min(available, payload);
  const bool accepted = ipv6 & (tcp | udp) & (bounded >= l4_bytes);
  if (!accepted) return false;
  // In bounds: a RoCEv2 frame was accepted with the BTH's 12 bytes after the UDP header.
  const std::uint32_t queue_pair_word = load_be32(frame, kL4 + (rocev2 ? kDestQpOffset : 0));
  const std::uint32_t flow_word =
      rocev2 ? rocev2_flow_word(queue_pair_word & 0x00FFFFFF) : queue_pair_word;
  hash = hash_ipv6_l34(bytes + kL3 + 8, bytes + kL3 + 24, flow_word);
  return true;
}

// IPv4 RoCEv2 (UDP port 4791): the flow is the destination QP in the InfiniBand Base Transport
// Header that follows the UDP header (see flow_hash.cpp), so the BTH must be whole.
inline bool try_hash_l34_ipv4_rocev2(ByteSpan frame, std::uint32_t& hash) {
  constexpr std::size_t kL3 = 14;
  constexpr std::size_t kL4 = kL3 + 20;
  constexpr std::size_t kBth = kL4 + 8;
  constexpr std::size_t kBthBytes = 12;
  constexpr std::size_t kDestQpOffset = 4;  // a reserved octet, then the 24-bit DestQP
  if (frame.size() < kBth + kBthBytes) return false;
  const std::uint8_t* bytes = frame.data();
  std::size_t datagram = 0;
  const bool ipv4 = plain_ipv4_header(frame, datagram);
  const bool udp = bytes[kL3 + 9] == 17;
  const bool rocev2 = load_be16(frame, kL4 + 2) == kRocev2Port;
  if (!(ipv4 & udp & rocev2 & (datagram >= 20 + 8 + kBthBytes))) return false;
  hash = hash_ipv4_l34(ipv4_address_word(bytes + kL3 + 12), ipv4_address_word(bytes + kL3 + 16),
                       rocev2_flow_word(load_be32(frame, kBth + kDestQpOffset) & 0x00FFFFFF));
  return true;
}

// The functions above read an untagged frame (bytes 12.. the EtherType and what follows); this
// one takes any frame: an untagged IPv6 frame first (0x86 is no TPID's first byte), then past
// the tags. Inlined into the burst loops on purpose: called out of line, and with the tags
// skipped before the IPv6 test, IPv6 frames cost 6-7 ns more.
[[gnu::always_inline]] inline bool try_hash_l34(ByteSpan frame, std::uint32_t& hash) {
  if (frame.size() > 13 && frame[12] == 0x86) return try_hash_l34_ipv6(frame, hash);
  frame = skip_vlan_tags(frame);
  if (frame.size() > 13 && frame[12] == 0x86) return try_hash_l34_ipv6(frame, hash);
  return try_hash_l34_ipv4(frame, hash) || try_hash_l34_ipv4_rocev2(frame, hash);
}

}  // namespace braid::flow
