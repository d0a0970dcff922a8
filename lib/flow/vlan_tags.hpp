// 802.1Q/802.1ad tags, as the parser and the l34 fast paths see them. The l34 policy hashes no L2
// field, so a tagged frame hashes exactly as its untagged twin: the fast paths look at a frame
// past its tags (skip_vlan_tags) and take tagged traffic, a storage VLAN's usual case, without
// the full parser.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/bytes.hpp"
#include "flow/flow_key.hpp"

namespace braid::flow {

inline constexpr std::size_t kEthernetHeaderBytes = 14;  // IEEE 802.3 §3.1.1: DA, SA, Type
inline constexpr std::size_t kVlanTagBytes = 4;          // IEEE 802.1Q §9.3: TPID + TCI
inline constexpr std::uint8_t kMaxVlanTags = 2;          // one S-tag + one C-tag (802.1ad)

constexpr bool is_vlan_tpid(std::uint16_t ethertype) {
  return ethertype == kEtherTypeVlan || ethertype == kEtherTypeQinQ ||
         ethertype == kEtherTypeQinQLegacy;
}

// The frame less kVlanTagBytes from its start per tag (at most kMaxVlanTags, and only tags the
// frame holds whole, as the parser takes them): bytes 12.. of the result are the EtherType after
// the tags and what follows it, where an untagged frame has them; only the MAC addresses, which
// l34 never reads, are cut. A frame the parser stops on (a third tag, a cut tag) keeps a TPID
// where the fast paths look for IPv4 or IPv6, so they decline it. No branch on the tags (real
// traffic mixes tagged and untagged frames): a frame too short for a tag is the only branch.
inline ByteSpan skip_vlan_tags(ByteSpan frame) {
  constexpr std::size_t kOneTag = kEthernetHeaderBytes + kVlanTagBytes;
  if (frame.size() < kOneTag) return frame;
  // Bytes 16-17 lie inside the kOneTag bytes checked above, so both loads are in bounds.
  const std::size_t one = is_vlan_tpid(load_be16(frame, 12)) ? 1 : 0;
  const std::size_t two = one & (frame.size() >= kOneTag + kVlanTagBytes ? 1U : 0U) &
                          (is_vlan_tpid(load_be16(frame, 12 + kVlanTagBytes)) ? 1U : 0U);
  return frame.subspan(kVlanTagBytes * (one + two));
}

}  // namespace braid::flow
