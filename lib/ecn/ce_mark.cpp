#include "ecn/ce_mark.hpp"

#include <cstddef>

#include "common/inet_checksum.hpp"
#include "flow/vlan_tags.hpp"

namespace braid::ecn {
namespace {

// RFC 3168 section 5: the ECN field's codepoints.
constexpr std::uint8_t kEcnMask = 0x03;
constexpr std::uint8_t kNotEct = 0x00;
constexpr std::uint8_t kCe = 0x03;

constexpr std::size_t kEtherTypeOffset = 12;
constexpr std::size_t kIpv4MinHeaderBytes = 20;  // RFC 791 3.1: IHL 5
constexpr std::size_t kIpv4ChecksumOffset = 10;
constexpr std::size_t kIpv6HeaderBytes = 40;  // RFC 8200 section 3

MarkResult classify(std::uint8_t ecn) {
  if (ecn == kNotEct) return MarkResult::not_ect;
  if (ecn == kCe) return MarkResult::already_ce;
  return MarkResult::marked;
}

MarkResult mark_ipv4(MutableByteSpan frame, std::size_t l3) {
  if (frame.size() < l3 + kIpv4MinHeaderBytes) return MarkResult::truncated;
  const std::uint8_t version_ihl = frame[l3];
  if (version_ihl >> 4 != 4 || (version_ihl & 0x0F) < 5) return MarkResult::not_ip;
  if (frame.size() < l3 + std::size_t{version_ihl & 0x0FU} * 4) return MarkResult::truncated;
  const MarkResult result = classify(frame[l3 + 1] & kEcnMask);
  if (result != MarkResult::marked) return result;
  // RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), m the 16-bit word holding the TOS octet. Unlike
  // RFC 1141's HC + m + ~m' it never turns a checksum a full recompute makes 0x0000 into 0xFFFF,
  // and it keeps the header's one's-complement sum, so a checksum that was wrong stays wrong.
  const std::uint16_t old_word = load_be16(frame, l3);
  const auto new_word = static_cast<std::uint16_t>(old_word | kCe);
  const std::uint16_t old_checksum = load_be16(frame, l3 + kIpv4ChecksumOffset);
  const std::uint32_t sum = std::uint32_t{static_cast<std::uint16_t>(~old_checksum)} +
                            std::uint32_t{static_cast<std::uint16_t>(~old_word)} + new_word;
  store_be16(frame, l3, new_word);
  store_be16(frame, l3 + kIpv4ChecksumOffset, fold_checksum(sum));
  return MarkResult::marked;
}

MarkResult mark_ipv6(MutableByteSpan frame, std::size_t l3) {
  if (frame.size() < l3 + kIpv6HeaderBytes) return MarkResult::truncated;
  if (frame[l3] >> 4 != 6) return MarkResult::not_ip;
  // Traffic Class straddles the first two octets: its ECN bits are bits 4-5 of the second.
  const MarkResult result = classify((frame[l3 + 1] >> 4) & kEcnMask);
  if (result == MarkResult::marked) frame[l3 + 1] |= kCe << 4;
  return result;
}

}  // namespace

const char* to_string(MarkResult result) {
  switch (result) {
    case MarkResult::marked:
      return "marked";
    case MarkResult::already_ce:
      return "already_ce";
    case MarkResult::not_ect:
      return "not_ect";
    case MarkResult::not_ip:
      return "not_ip";
    case MarkResult::truncated:
      return "truncated";
  }
  return "unknown";
}

MarkResult mark_ce(MutableByteSpan frame) {
  if (frame.size() < flow::kEthernetHeaderBytes) return MarkResult::truncated;
  std::size_t type_at = kEtherTypeOffset;
  std::uint16_t type = load_be16(frame, type_at);
  for (std::uint8_t tags = 0; tags < flow::kMaxVlanTags && flow::is_vlan_tpid(type); ++tags) {
    type_at += flow::kVlanTagBytes;
    if (frame.size() < type_at + 2) return MarkResult::truncated;
    type = load_be16(frame, type_at);
  }
  // A third tag leaves a TPID here: not IP, as the flow parser sees it.
  const std::size_t l3 = type_at + 2;
  if (type == flow::kEtherTypeIpv4) return mark_ipv4(frame, l3);
  if (type == flow::kEtherTypeIpv6) return mark_ipv6(frame, l3);
  return MarkResult::not_ip;
}

}  // namespace braid::ecn
