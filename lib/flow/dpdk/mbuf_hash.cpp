#include "flow/dpdk/mbuf_hash.hpp"

#include <algorithm>
#include <array>
#include <span>

#include "flow/l34_fast_path.hpp"
#include "flow/parser.hpp"

namespace braid::flow::dpdk {
namespace {

// How far ahead of the packet being parsed to prefetch packet data (its headers sit in the
// first cache line of the data room).
constexpr std::size_t kPrefetchDistance = 4;

bool has_nic_hash(const rte_mbuf* mbuf) {
  return (mbuf->ol_flags & RTE_MBUF_F_RX_RSS_HASH) != 0;
}

ByteSpan first_segment(const rte_mbuf* mbuf) {
  return {rte_pktmbuf_mtod(mbuf, const std::uint8_t*), rte_pktmbuf_data_len(mbuf)};
}

}  // namespace

void mbuf_flow_key(const rte_mbuf* mbuf, FlowKey& key) {
  parse_flow_key(first_segment(mbuf), key);
}

std::uint32_t mbuf_hash(const FlowHasher& hasher, const rte_mbuf* mbuf) {
  if (hasher.policy() == HashPolicy::nic_rss && has_nic_hash(mbuf)) return mbuf->hash.rss;
  return hasher.hash_frame(first_segment(mbuf));
}

void mbuf_hash_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                     std::uint32_t* hashes) {
  if (hasher.policy() == HashPolicy::nic_rss) {
    // Mostly a load per packet; only packets the PMD left unhashed are parsed.
    for (std::uint16_t i = 0; i < count; ++i)
      hashes[i] = mbuf_hash(hasher, mbufs[i]);
    return;
  }
  if (hasher.policy() == HashPolicy::l34) {
    // Most storage traffic is plain IPv4 TCP/UDP: hash it straight from the frame, and parse
    // only what the fast path declines.
    for (std::uint16_t i = 0; i < count; ++i) {
      if (i + kPrefetchDistance < count) {
        rte_prefetch0(rte_pktmbuf_mtod(mbufs[i + kPrefetchDistance], const void*));
      }
      if (!try_hash_l34(first_segment(mbufs[i]), hashes[i])) {
        hashes[i] = hasher.hash_frame(first_segment(mbufs[i]));
      }
    }
    return;
  }
  std::array<FlowKey, kHashBurstSize> keys;
  for (std::uint16_t start = 0; start < count; start += kHashBurstSize) {
    const std::size_t chunk = std::min<std::size_t>(kHashBurstSize, count - start);
    for (std::size_t i = 0; i < chunk; ++i) {
      const std::size_t ahead = start + i + kPrefetchDistance;
      if (ahead < count) rte_prefetch0(rte_pktmbuf_mtod(mbufs[ahead], const void*));
      parse_flow_key(first_segment(mbufs[start + i]), keys[i]);
    }
    hasher.hash_burst(std::span<const FlowKey>(keys.data(), chunk), hashes + start);
  }
}

}  // namespace braid::flow::dpdk
