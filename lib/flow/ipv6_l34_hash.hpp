// The l34 hash of an IPv6 flow, built like the IPv4 one (ipv4_l34_hash.hpp) so that the
// four-lane SSE path hashes IPv4 and IPv6 lanes in one pass: nine 32-bit words (each address as
// four words in the machine's order, then the flow word: ports or the RoCEv2 QP), each xored with
// its position's secret, multiplied by its position's odd constant and folded, summed, and
// finished as IPv4's sum is. The last 8 bytes of the destination and the flow word take the IPv4
// hash's three positions (source, destination, ports): IPv6's L4 header starts 20 bytes after
// IPv4's, so the load that reads an IPv4 lane's source, destination and ports reads exactly these
// three words of an IPv6 lane. The other six words have positions of their own. Each share is a
// bijection of its word, so two flows that differ in one word (one address's low bits, or only
// the ports) never share a sum, and the finaliser spreads the sum over every bit.
#pragma once

#include <cstdint>
#include <cstring>

#include "flow/ipv4_l34_hash.hpp"

namespace braid::flow {

struct Ipv6L34HashConstants {
  // Source address words 0..3, destination words 0..1 (words 2..3: IPv4's source and
  // destination positions). Odd multipliers with about half their bits set, no two alike.
  static constexpr std::uint32_t kSecrets[6] = {0x75374cc3, 0xc47d124f, 0x7f4a7c15,
                                                0x27d4eb4f, 0x9e3779f9, 0xa0761d64};
  static constexpr std::uint32_t kMultipliers[6] = {0x27d4eb2f, 0x165667b1, 0xcc9e2d51,
                                                    0x1b873593, 0x7feb352d, 0x846ca68b};
};

inline constexpr std::size_t kIpv6AddressWords = 4;

// An IPv6 address's 16 bytes as four words in the machine's order.
inline void ipv6_address_words(const std::uint8_t* address, std::uint32_t (&words)[4]) {
  std::memcpy(words, address, sizeof words);
}

// The sum of the six shares only IPv6 has: source words 0..3, destination words 0..1.
inline std::uint32_t ipv6_l34_extra_shares(const std::uint8_t* src, const std::uint8_t* dst) {
  using C6 = Ipv6L34HashConstants;
  std::uint32_t src_words[kIpv6AddressWords];
  std::uint32_t dst_words[kIpv6AddressWords];
  ipv6_address_words(src, src_words);
  ipv6_address_words(dst, dst_words);
  const std::uint32_t extra[6] = {src_words[0], src_words[1], src_words[2],
                                  src_words[3], dst_words[0], dst_words[1]};
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < 6; ++i)
    sum += ipv4_l34_share(extra[i], C6::kSecrets[i], C6::kMultipliers[i]);
  return sum;
}

// `src`, `dst`: the 16-byte addresses as on the wire; `flow_word` as for IPv4 (ports, source in
// the high half, or rocev2_flow_word of the destination QP).
inline std::uint32_t hash_ipv6_l34(const std::uint8_t* src, const std::uint8_t* dst,
                                   std::uint32_t flow_word) {
  using C = Ipv4L34HashConstants;
  std::uint32_t dst_words[kIpv6AddressWords];
  ipv6_address_words(dst, dst_words);
  return finish_l34(ipv6_l34_extra_shares(src, dst) +
                    ipv4_l34_share(dst_words[2], C::kSrcSecret, C::kSrcMultiplier) +
                    ipv4_l34_share(dst_words[3], C::kDstSecret, C::kDstMultiplier) +
                    ipv4_l34_share(flow_word, C::kPortsSecret, C::kPortsMultiplier));
}

}  // namespace braid::flow
