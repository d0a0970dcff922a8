// Transmit hashing: FlowKey → 32-bit hash under one HashPolicy (semantics in doc/flow.md).
// Allocation-free on the per-packet path; the burst functions choose the policy once per burst
// so the inner loop has no policy branch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/bytes.hpp"
#include "flow/flow_key.hpp"
#include "flow/hash_policy.hpp"
#include "flow/toeplitz.hpp"

namespace braid::flow {

// Packets a burst function handles per inner step (the usual rx/tx burst size).
inline constexpr std::size_t kHashBurstSize = 32;

// RSS input tuple in the order NICs hash it (src addr, dst addr, src port, dst port; network
// byte order): 12 bytes for IPv4, 36 for IPv6. Ports are zero when the key has none (fragments,
// ICMP, unknown L4); Toeplitz of zero bytes is zero, so that equals the 2-tuple hash.
struct RssTuple {
  std::array<std::uint8_t, 36> bytes;
  std::size_t size;

  ByteSpan span() const { return {bytes.data(), size}; }
};

// The tuple of the outer L3/L4 headers; `symmetric` orders the two endpoints (address, then
// port) so that both directions of a connection give the same tuple. Empty without L3.
RssTuple make_rss_tuple(const FlowKey& key, bool symmetric);

// Bucket of a 2^bucket_bits table (bucket_bits in 1..31) from the high bits of a hash. NICs
// index their RETA with the low bits of the RSS hash, so with `toeplitz`/`nic-rss` the high
// bits stay independent of which RX queue (worker) a flow arrived on.
constexpr std::uint32_t hash_bucket(std::uint32_t hash, unsigned bucket_bits) {
  return hash >> (32U - bucket_bits);
}

class FlowHasher {
 public:
  // `nic_rss_fallback` is the software policy used by nic-rss for packets without a NIC hash
  // (and by hash(FlowKey), which never has one); it must not itself be nic-rss. `rss_key` is the
  // Toeplitz key (at least 5 bytes). Throws std::invalid_argument on either mistake.
  explicit FlowHasher(HashPolicy policy, HashPolicy nic_rss_fallback = HashPolicy::l34,
                      ByteSpan rss_key = kMicrosoftRssKey);

  HashPolicy policy() const { return policy_; }
  // What hash() computes: policy(), or the fallback when policy() is nic-rss.
  HashPolicy software_policy() const { return software_policy_; }
  const Toeplitz& toeplitz() const { return toeplitz_; }

  std::uint32_t hash(const FlowKey& key) const;
  // hashes[i] = hash(keys[i]); hashes must hold keys.size() entries.
  void hash_burst(std::span<const FlowKey> keys, std::uint32_t* hashes) const;

  // Parse + hash, for callers holding raw frames.
  std::uint32_t hash_frame(ByteSpan frame) const;
  void hash_frame_burst(std::span<const ByteSpan> frames, std::uint32_t* hashes) const;

 private:
  HashPolicy policy_;
  HashPolicy software_policy_;
  Toeplitz toeplitz_;
};

}  // namespace braid::flow
