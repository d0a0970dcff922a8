// mbuf adapter for the flow library: parses the first segment of an mbuf and hashes it with a
// FlowHasher. For nic-rss, reuses the NIC's RSS hash (mbuf->hash.rss) when the PMD marked it
// valid (RTE_MBUF_F_RX_RSS_HASH) and falls back to the hasher's software policy otherwise.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "flow/flow_hash.hpp"
#include "flow/flow_key.hpp"
#include "flow/l34_burst.hpp"

namespace braid::flow::dpdk {

// Parses the mbuf's first segment only: headers split across segments parse as truncated, and
// PMDs put at least the headers in the first segment.
void mbuf_flow_key(const rte_mbuf* mbuf, FlowKey& key);

// The hash of one packet under hasher.policy().
std::uint32_t mbuf_hash(const FlowHasher& hasher, const rte_mbuf* mbuf);

// hashes[i] = mbuf_hash(hasher, mbufs[i]) for i < count, any count; no allocation (keys for
// kHashBurstSize packets at a time live on the stack).
void mbuf_hash_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                     std::uint32_t* hashes);

// The same hashes, showing `visitor` every group of up to four packets (flow/l34_burst.hpp): as
// the l34 hash pass goes under policy l34 (`taken` marks the packets its fast path took), after
// hashing with none taken under the others.
void mbuf_hash_burst(const FlowHasher& hasher, rte_mbuf* const* mbufs, std::uint16_t count,
                     std::uint32_t* hashes, const LaneVisitor& visitor);

}  // namespace braid::flow::dpdk
