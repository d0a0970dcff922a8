// LACPDU codec (802.1AX-2014 6.4.2.3). Frames are whole Ethernet frames without FCS:
// destination 01-80-C2-00-00-02, source = the sending port's MAC, Ethertype 0x8809, then the
// 110-octet LACPDU: 124 octets in all.
#pragma once

#include <array>
#include <cstdint>

#include "common/bytes.hpp"
#include "lacp/constants.hpp"
#include "lacp/decode_error.hpp"
#include "lacp/types.hpp"

namespace braid::lacp {

using SlowFrame = std::array<std::uint8_t, kSlowFrameLen>;

struct Lacpdu {
  std::uint8_t version = kLacpVersion;
  PortInfo actor;
  PortInfo partner;
  std::uint16_t collector_max_delay = 0;  // tens of microseconds (6.4.2.3 o)
};

// Encodes a version 1 LACPDU; reserved octets and padding are zero.
SlowFrame encode_lacpdu(const MacAddress& source, const Lacpdu& pdu);

// Decodes the 110-octet LACPDU that follows the Ethernet header (`pdu` starts at the subtype).
// Version 1 is checked strictly: fixed TLV positions, types and lengths, Terminator length 0.
// Version >= 2 is accepted per the forward-compatibility rule of 6.4.2.3 b) as applied by
// 6.4.12 (a receiver interprets the fields it knows and ignores the rest): the version 1 TLVs
// must still be where version 1 puts them, further TLVs up to the Terminator are walked for
// sane lengths and ignored, and the PDU may be longer than 110 octets.
DecodeError decode_lacpdu(ByteSpan pdu, Lacpdu& out);

}  // namespace braid::lacp
