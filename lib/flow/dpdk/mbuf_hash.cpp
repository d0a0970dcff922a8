#include "flow/dpdk/mbuf_hash.hpp"

#include <algorithm>
#include <array>
#include <span>

#include "flow/l34_burst.hpp"
#include "flow/l34_fast_path.hpp"
#include "flow/parser.hpp"

namespace braid::flow::dpdk {
namespace {

bool has_nic_hash(const rte_mbuf* mbuf) {
  return (mbuf->ol_flags & RTE_MBUF_F_RX_RSS_HASH) != 0;
}

ByteSpan first_segment(const rte_mbuf* mbuf) {
  return {rte_pktmbuf_mtod(mbuf, const std::uint8_t*), rte_pktmbuf_data_len(mbuf)};
}

// IPv4 and IPv6 TCP, UDP and RoCEv2, tagged or not, most storage traffic, four frames at a time
// (l34_burst.hpp).
void hash_l34_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                    std::uint32_t* hashes, const LaneVisitor& visitor = {}) {
  hash_l34_frames(
      hasher, count, [mbufs](std::size_t i) { return first_segment(mbufs[i]); },
      [mbufs](std::size_t i) { rte_prefetch0(rte_pktmbuf_mtod(mbufs[i], const void*)); }, hashes,
      visitor);
}

// The software policy's hash of one frame: through the l34 fast path where that is the policy.
std::uint32_t software_hash(const FlowHasher& hasher, ByteSpan frame) {
  std::uint32_t hash = 0;
  if (hasher.software_policy() == HashPolicy::l34 && try_hash_l34(frame, hash)) return hash;
  return hasher.hash_frame(frame);
}

// A load per packet; the packets the PMD left unhashed are noted (no branch) and hashed after.
void hash_nic_rss_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                        std::uint32_t* hashes) {
  std::array<std::uint16_t, kHashBurstSize> unhashed;
  for (std::uint16_t chunk = 0; chunk < count;
       chunk = static_cast<std::uint16_t>(chunk + kHashBurstSize)) {
    const std::uint16_t end =
        static_cast<std::uint16_t>(std::min<std::size_t>(count, chunk + kHashBurstSize));
    unsigned unhashed_count = 0;
    for (std::uint16_t i = chunk; i < end; ++i) {
      hashes[i] = mbufs[i]->hash.rss;
      unhashed[unhashed_count] = i;
      unhashed_count += has_nic_hash(mbufs[i]) ? 0 : 1;
    }
    for (unsigned k = 0; k < unhashed_count; ++k)
      hashes[unhashed[k]] = software_hash(hasher, first_segment(mbufs[unhashed[k]]));
  }
}

}  // namespace

void mbuf_flow_key(const rte_mbuf* mbuf, FlowKey& key) {
  parse_flow_key(first_segment(mbuf), key);
}

std::uint32_t mbuf_hash(const FlowHasher& hasher, const rte_mbuf* mbuf) {
  if (hasher.policy() == HashPolicy::nic_rss && has_nic_hash(mbuf)) return mbuf->hash.rss;
  return software_hash(hasher, first_segment(mbuf));
}

void mbuf_hash_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                     std::uint32_t* hashes) {
  if (hasher.policy() == HashPolicy::nic_rss) {
    hash_nic_rss_burst(hasher, mbufs, count, hashes);
    return;
  }
  if (hasher.policy() == HashPolicy::l34) {
    hash_l34_burst(hasher, mbufs, count, hashes);
    return;
  }
  std::array<FlowKey, kHashBurstSize> keys;
  for (std::uint16_t start = 0; start < count; start += kHashBurstSize) {
    const std::size_t chunk = std::min<std::size_t>(kHashBurstSize, count - start);
    for (std::size_t i = 0; i < chunk; ++i) {
      const std::size_t ahead = start + i + kL34PrefetchDistance;
      if (ahead < count) rte_prefetch0(rte_pktmbuf_mtod(mbufs[ahead], const void*));
      parse_flow_key(first_segment(mbufs[start + i]), keys[i]);
    }
    hasher.hash_burst(std::span<const FlowKey>(keys.data(), chunk), hashes + start);
  }
}

void mbuf_hash_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                     std::uint32_t* hashes, const LaneVisitor& visitor) {
  if (hasher.policy() == HashPolicy::l34) {
    hash_l34_burst(hasher, mbufs, count, hashes, visitor);
    return;
  }
  mbuf_hash_burst(hasher, mbufs, count, hashes);
  std::array<ByteSpan, kL34Lanes> frames;
  for (std::uint16_t start = 0; start < count; start += kL34Lanes) {
    const unsigned lanes = std::min<unsigned>(kL34Lanes, count - start);
    for (unsigned i = 0; i < lanes; ++i)
      frames[i] = first_segment(mbufs[start + i]);
    visitor({start, frames.data(), lanes, 0});
  }
}

}  // namespace braid::flow::dpdk
