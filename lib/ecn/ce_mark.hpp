// Marks one Ethernet frame Congestion Experienced (RFC 3168 section 5), in place.
//
// The frame may carry up to two VLAN tags (802.1Q 0x8100, 802.1ad 0x88A8, the older 0x9100),
// then IPv4 or IPv6. The ECN field is the low two bits of the IPv4 TOS / IPv6 Traffic Class:
// 00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE. ECT(0) and ECT(1) become CE; CE stays CE; a Not-ECT
// packet is never touched, nor is anything that is not a whole IP header. IPv4's header checksum
// is updated incrementally (RFC 1624 eqn. 3), so a header whose checksum was right stays right and
// one that was wrong stays wrong; IPv6 has no header checksum.
//
// Only the outer IP header is marked, tunnel or not: a decapsulator following RFC 6040 (section
// 4.2) copies an outer CE into an ECT inner header, so the receiver sees the mark, and a tunnel
// whose outer header is Not-ECT asked not to be marked.
#pragma once

#include <cstdint>

#include "common/bytes.hpp"

namespace braid::ecn {

enum class MarkResult : std::uint8_t {
  marked,      // was ECT(0) or ECT(1), is CE now
  already_ce,  // was CE: left as it was
  not_ect,     // Not-ECT: left as it was
  not_ip,      // not IPv4 or IPv6 (another EtherType, a third VLAN tag, a bad version or IHL)
  truncated,   // the frame ends inside its L2 or IP header
};

const char* to_string(MarkResult result);

MarkResult mark_ce(MutableByteSpan frame);

}  // namespace braid::ecn
