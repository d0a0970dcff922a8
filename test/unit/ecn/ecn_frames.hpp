// Frames for the ECN tests, the fuzz seeds' twin and the benchmark: IPv4 and IPv6 UDP frames with a
// chosen TOS / Traffic Class, tagged or not, IPv4 with a correct header checksum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/bytes.hpp"
#include "common/inet_checksum.hpp"
#include "frame_builder.hpp"

namespace braid::ecn::test {

inline constexpr flow::test::Mac kDst{0x02, 0, 0, 0, 0, 2};
inline constexpr flow::test::Mac kSrc{0x02, 0, 0, 0, 0, 1};
inline constexpr flow::test::Ipv4 kSrc4{10, 0, 0, 1};
inline constexpr flow::test::Ipv4 kDst4{10, 0, 0, 2};
inline constexpr flow::test::Ipv6 kSrc6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
inline constexpr flow::test::Ipv6 kDst6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

// The checksum a full recompute gives the IPv4 header at `l3` (RFC 791 3.1: over the header with
// the checksum field taken as zero).
inline std::uint16_t recompute_ipv4_checksum(ByteSpan frame, std::size_t l3) {
  const std::size_t header = std::size_t{frame[l3] & 0x0FU} * 4;
  std::uint32_t sum = add_checksum(0, frame.subspan(l3, 10));
  sum = add_checksum(sum, frame.subspan(l3 + 12, header - 12));
  return fold_checksum(sum);
}

// Whether the IPv4 header at `l3` verifies as a receiver checks it: its one's-complement sum,
// checksum included, is all ones.
inline bool ipv4_checksum_verifies(ByteSpan frame, std::size_t l3) {
  const std::size_t header = std::size_t{frame[l3] & 0x0FU} * 4;
  return fold_checksum(add_checksum(0, frame.subspan(l3, header))) == 0;
}

inline void fix_ipv4_checksum(std::vector<std::uint8_t>& frame, std::size_t l3) {
  store_be16(frame, l3 + 10, recompute_ipv4_checksum(frame, l3));
}

// Ethernet [+ tags] + IPv4 (+ options) + UDP + payload, checksum right. `tpids` are the tags'
// TPIDs, outermost first.
inline std::vector<std::uint8_t> ipv4_frame(std::uint8_t tos,
                                            const std::vector<std::uint16_t>& tpids = {},
                                            std::vector<std::uint8_t> options = {},
                                            std::size_t payload = 18) {
  flow::test::FrameBuilder builder;
  builder.ethernet(kDst, kSrc);
  for (std::uint16_t tpid : tpids)
    builder.vlan(tpid, 0x6064);  // PCP 3, VLAN 100
  builder.ipv4(kSrc4, kDst4, 0x4000, 0x1234, std::move(options))
      .traffic_class(tos)
      .udp(4791, 4791)
      .payload(payload);
  std::vector<std::uint8_t> frame = builder.build();
  fix_ipv4_checksum(frame, 14 + 4 * tpids.size());
  return frame;
}

inline std::vector<std::uint8_t> ipv6_frame(std::uint8_t traffic_class,
                                            const std::vector<std::uint16_t>& tpids = {},
                                            std::size_t payload = 18) {
  flow::test::FrameBuilder builder;
  builder.ethernet(kDst, kSrc);
  for (std::uint16_t tpid : tpids)
    builder.vlan(tpid, 0x6064);
  builder.ipv6(kSrc6, kDst6, 0xABCDE).traffic_class(traffic_class).udp(4791, 4791).payload(payload);
  return builder.build();
}

}  // namespace braid::ecn::test
