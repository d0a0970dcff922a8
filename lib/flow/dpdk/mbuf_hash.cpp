#include "flow/dpdk/mbuf_hash.hpp"

#include <algorithm>
#include <array>
#include <span>

#include "flow/l34_fast_path.hpp"
#include "flow/l34_fast_path_x4.hpp"
#include "flow/parser.hpp"

namespace braid::flow::dpdk {
namespace {

// How far ahead of the packet being parsed to prefetch packet data (its headers sit in the
// first cache line of the data room).
constexpr std::size_t kPrefetchDistance = 8;

bool has_nic_hash(const rte_mbuf* mbuf) {
  return (mbuf->ol_flags & RTE_MBUF_F_RX_RSS_HASH) != 0;
}

ByteSpan first_segment(const rte_mbuf* mbuf) {
  return {rte_pktmbuf_mtod(mbuf, const std::uint8_t*), rte_pktmbuf_data_len(mbuf)};
}

// The lanes the four-lane path declined (options, fragments, extension headers...): the full
// parser (the scalar fast path takes no frame the four-lane one declines).
void hash_declined_lanes(const FlowHasher& hasher, const std::array<ByteSpan, kL34Lanes>& frames,
                         unsigned lanes, unsigned hashed, std::uint32_t* hashes) {
  for (unsigned i = 0; i < lanes; ++i) {
    if ((hashed >> i & 1) == 0) hashes[i] = hasher.hash_frame(frames[i]);
  }
}

// kFields: the classifier's fields of the lanes the fast path took, read while their bytes are in
// L1 (took[] says which).
template <bool kFields>
void note_fields(const std::array<ByteSpan, kL34Lanes>& frames, unsigned lanes, unsigned hashed,
                 L34Fields* fields, bool* took, std::uint16_t start) {
  if constexpr (kFields) {
    for (unsigned i = 0; i < lanes; ++i) {
      took[start + i] = (hashed >> i & 1) != 0;
      if (took[start + i]) fields[start + i] = l34_fields(frames[i]);
    }
  }
}

// IPv4 and IPv6 TCP, UDP and RoCEv2, tagged or not, most storage traffic, four frames at a time
// (l34_fast_path_x4.hpp).
template <bool kFields>
void hash_l34_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                    std::uint32_t* hashes, L34Fields* fields = nullptr, bool* took = nullptr) {
  constexpr unsigned kAllLanes = (1u << kL34Lanes) - 1;
  std::array<ByteSpan, kL34Lanes> frames;
  std::uint16_t start = 0;
  for (; start + kL34Lanes <= count; start += kL34Lanes) {
    for (unsigned i = 0; i < kL34Lanes; ++i) {
      if (start + i + kPrefetchDistance < count)
        rte_prefetch0(rte_pktmbuf_mtod(mbufs[start + i + kPrefetchDistance], const void*));
      frames[i] = first_segment(mbufs[start + i]);
    }
    const unsigned hashed = try_hash_l34_x4(frames, hashes + start);
    note_fields<kFields>(frames, kL34Lanes, hashed, fields, took, start);
    if (hashed != kAllLanes) hash_declined_lanes(hasher, frames, kL34Lanes, hashed, hashes + start);
  }
  if (start == count) return;
  const unsigned lanes = count - start;
  for (unsigned i = 0; i < kL34Lanes; ++i)
    frames[i] = i < lanes ? first_segment(mbufs[start + i]) : ByteSpan();
  std::array<std::uint32_t, kL34Lanes> tail{};
  const unsigned hashed = try_hash_l34_x4(frames, tail.data());
  note_fields<kFields>(frames, lanes, hashed, fields, took, start);
  hash_declined_lanes(hasher, frames, lanes, hashed, tail.data());
  std::copy_n(tail.data(), lanes, hashes + start);
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
    hash_l34_burst<false>(hasher, mbufs, count, hashes);
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

void mbuf_hash_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                     std::uint32_t* hashes, L34Fields* fields, bool* took) {
  if (hasher.policy() == HashPolicy::l34) {
    hash_l34_burst<true>(hasher, mbufs, count, hashes, fields, took);
    return;
  }
  std::fill_n(took, count, false);
  mbuf_hash_burst(hasher, mbufs, count, hashes);
}

}  // namespace braid::flow::dpdk
