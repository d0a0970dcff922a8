// The common case of the l34 policy without building a FlowKey: an untagged, unfragmented IPv4
// datagram with a 20-byte header, or an IPv6 packet without extension headers, carrying TCP or
// UDP (not RoCEv2). It reads the few fields the
// policy hashes straight from the frame and feeds the Mixer exactly the words hash_l34 feeds it,
// so both paths give the same hash for a frame (a unit test checks this over every truncation
// and random corruption). Anything else returns false and takes the full parser.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/bytes.hpp"
#include "flow/mixer.hpp"

namespace braid::flow {

inline bool try_hash_l34_ipv4(ByteSpan frame, std::uint32_t& hash) {
  constexpr std::size_t kL3 = 14;  // untagged Ethernet
  constexpr std::size_t kL4 = kL3 + 20;
  constexpr std::uint16_t kRocev2Port = 4791;  // IANA: RoCEv2
  if (frame.size() < kL4 + 8) return false;
  const std::uint8_t* bytes = frame.data();
  if (bytes[12] != 0x08 || bytes[13] != 0x00 || bytes[kL3] != 0x45) return false;
  const std::uint8_t protocol = bytes[kL3 + 9];
  const std::size_t l4_bytes = protocol == 6 ? 20 : protocol == 17 ? 8 : 0;
  if (l4_bytes == 0) return false;
  // Fragments (MF set or a non-zero offset) hash without ports: leave them to the parser.
  if ((load_be16(frame, kL3 + 6) & 0x3FFF) != 0) return false;
  // The datagram ends at its total length (Ethernet padding follows) or the frame's end.
  const std::size_t total = load_be16(frame, kL3 + 2);
  if (total < 20 || std::min(frame.size() - kL3, total) < 20 + l4_bytes) return false;
  const std::uint16_t src_port = load_be16(frame, kL4);
  const std::uint16_t dst_port = load_be16(frame, kL4 + 2);
  if (protocol == 17 && dst_port == kRocev2Port) return false;
  std::uint32_t src_addr = 0;
  std::uint32_t dst_addr = 0;
  std::memcpy(&src_addr, bytes + kL3 + 12, sizeof src_addr);
  std::memcpy(&dst_addr, bytes + kL3 + 16, sizeof dst_addr);
  Mixer mixer(kFlowHashSeed);
  mixer.add(src_addr);  // the key's 16-byte address fields: 4 address bytes, then zeros
  mixer.add(0);
  mixer.add(dst_addr);
  mixer.add(0);
  mixer.add((std::uint64_t{src_port} << 16) | dst_port);
  hash = mixer.finish();
  return true;
}

inline bool try_hash_l34_ipv6(ByteSpan frame, std::uint32_t& hash) {
  constexpr std::size_t kL3 = 14;
  constexpr std::size_t kL4 = kL3 + 40;
  constexpr std::uint16_t kRocev2Port = 4791;  // IANA: RoCEv2
  if (frame.size() < kL4 + 8) return false;
  const std::uint8_t* bytes = frame.data();
  if (bytes[12] != 0x86 || bytes[13] != 0xdd || (bytes[kL3] >> 4) != 6) return false;
  const std::uint8_t next_header = bytes[kL3 + 6];
  const std::size_t l4_bytes = next_header == 6 ? 20 : next_header == 17 ? 8 : 0;
  if (l4_bytes == 0) return false;  // extension headers and the rest: the parser
  // Payload length 0 is a jumbogram (RFC 2675): the frame's end bounds it.
  const std::size_t payload = load_be16(frame, kL3 + 4);
  const std::size_t available = frame.size() - kL4;
  if ((payload == 0 ? available : std::min(available, payload)) < l4_bytes) return false;
  const std::uint16_t src_port = load_be16(frame, kL4);
  const std::uint16_t dst_port = load_be16(frame, kL4 + 2);
  if (next_header == 17 && dst_port == kRocev2Port) return false;
  std::uint64_t words[4];
  std::memcpy(words, bytes + kL3 + 8, sizeof words);  // source then destination address
  Mixer mixer(kFlowHashSeed);
  for (std::uint64_t word : words)
    mixer.add(word);
  mixer.add((std::uint64_t{src_port} << 16) | dst_port);
  hash = mixer.finish();
  return true;
}

inline bool try_hash_l34(ByteSpan frame, std::uint32_t& hash) {
  return try_hash_l34_ipv4(frame, hash) || try_hash_l34_ipv6(frame, hash);
}

}  // namespace braid::flow
