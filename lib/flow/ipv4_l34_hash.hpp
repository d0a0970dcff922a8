// The l34 hash of an IPv4 flow: both hash paths (the parser's hash_l34 in
// flow_hash.cpp and the fast paths in l34_fast_path*.hpp) call this one definition, so they
// cannot drift apart. It works in 32-bit lanes so that the 4-frames-at-once SSE path computes
// exactly the same value: each of the three words is xored with its own secret, multiplied by
// its own odd constant (so source and destination are not interchangeable) and folded onto
// itself, the shares are summed and the sum goes through the MurmurHash3 32-bit finaliser, which
// makes every output bit depend on every bit of the sum (the uniformity tests check low and high
// bits).
#pragma once

#include <cstdint>
#include <cstring>

namespace braid::flow {

struct Ipv4L34HashConstants {
  static constexpr std::uint32_t kSrcSecret = 0x78bd642f;
  static constexpr std::uint32_t kDstSecret = 0xa0b428db;
  static constexpr std::uint32_t kPortsSecret = 0x9c88c6e3;
  static constexpr std::uint32_t kSrcMultiplier = 0x9e3779b1;
  static constexpr std::uint32_t kDstMultiplier = 0x85ebca77;
  static constexpr std::uint32_t kPortsMultiplier = 0xc2b2ae3d;
  static constexpr std::uint32_t kSeed = 0x642d6677;  // "d-fw", after the 64-bit kFlowHashSeed
  static constexpr std::uint32_t kFinishMultiplier1 = 0x85ebca6b;  // MurmurHash3 fmix32
  static constexpr std::uint32_t kFinishMultiplier2 = 0xc2b2ae35;
};

// An IPv4 address's four bytes as one word, in the machine's own order (one load).
inline std::uint32_t ipv4_address_word(const std::uint8_t* address) {
  std::uint32_t word;
  std::memcpy(&word, address, sizeof word);
  return word;
}

// The third word for RoCEv2: the destination QP (24 bits) with a bit above it set, so that a QP
// never hashes like the same number as ports.
constexpr std::uint32_t rocev2_flow_word(std::uint32_t dest_qp) {
  return dest_qp | 0x01000000;
}

// `ports`: source port in bits 31..16, destination in 15..0 (zero for fragments and ICMP).
// One word's share: a multiply carries low input bits up, the shift brings the high ones down
// (without it, flows that differ only in a word's upper half, such as sequential source ports,
// would differ only in the sum's upper half).
constexpr std::uint32_t ipv4_l34_share(std::uint32_t word, std::uint32_t secret,
                                       std::uint32_t multiplier) {
  const std::uint32_t product = (word ^ secret) * multiplier;
  return product ^ (product >> 16);
}

// The shares' sum through the MurmurHash3 finaliser (the IPv6 hash ends the same way).
constexpr std::uint32_t finish_l34(std::uint32_t sum) {
  using C = Ipv4L34HashConstants;
  std::uint32_t h = sum ^ C::kSeed;
  h ^= h >> 16;
  h *= C::kFinishMultiplier1;
  h ^= h >> 13;
  h *= C::kFinishMultiplier2;
  h ^= h >> 16;
  return h;
}

constexpr std::uint32_t hash_ipv4_l34(std::uint32_t src_word, std::uint32_t dst_word,
                                      std::uint32_t ports) {
  using C = Ipv4L34HashConstants;
  return finish_l34(ipv4_l34_share(src_word, C::kSrcSecret, C::kSrcMultiplier) +
                    ipv4_l34_share(dst_word, C::kDstSecret, C::kDstMultiplier) +
                    ipv4_l34_share(ports, C::kPortsSecret, C::kPortsMultiplier));
}

}  // namespace braid::flow
