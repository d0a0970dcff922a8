// Reference frames built by hand, octet by octet, from the field layout of 802.1AX-2014
// Figure 6-7 (LACPDU) and Figure 6-27 (Marker PDU), and the values the codec tests encode.
#pragma once

#include <array>
#include <cstdint>

#include "lacp/pdu.hpp"

namespace braid::lacp::golden {

inline constexpr MacAddress kActorPortMac{0x02, 0x00, 0x00, 0x00, 0x01, 0x01};
inline constexpr MacAddress kActorSystem{0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
inline constexpr MacAddress kPartnerSystem{0x02, 0x00, 0x00, 0x00, 0x00, 0xAA};

// Actor: priority 32768, key 0x01CF, port priority 255, port 1, state A T G S C D (0x3F).
// Partner: priority 65535, key 33, port priority 255, port 2, state A G S C D (0x3D).
// Collector max delay 0x1234.
inline Lacpdu lacpdu() {
  Lacpdu pdu;
  pdu.actor = PortInfo{0x8000, kActorSystem, 0x01CF, 0x00FF, 1, 0x3F};
  pdu.partner = PortInfo{0xFFFF, kPartnerSystem, 33, 0x00FF, 2, 0x3D};
  pdu.collector_max_delay = 0x1234;
  return pdu;
}

inline SlowFrame lacpdu_frame() {
  SlowFrame f{};
  const std::uint8_t head[] = {
      0x01, 0x80, 0xC2, 0x00, 0x00, 0x02,  // destination: Slow Protocols group address
      0x02, 0x00, 0x00, 0x00, 0x01, 0x01,  // source: the actor port's MAC
      0x88, 0x09,                          // Slow Protocols Ethertype
      0x01,                                // subtype LACP
      0x01,                                // version 1
      0x01, 0x14,                          // Actor Information, length 20
      0x80, 0x00,                          // actor system priority
      0x02, 0x00, 0x00, 0x00, 0x00, 0x01,  // actor system
      0x01, 0xCF,                          // actor key
      0x00, 0xFF,                          // actor port priority
      0x00, 0x01,                          // actor port
      0x3F,                                // actor state
      0x00, 0x00, 0x00,                    // reserved
      0x02, 0x14,                          // Partner Information, length 20
      0xFF, 0xFF,                          // partner system priority
      0x02, 0x00, 0x00, 0x00, 0x00, 0xAA,  // partner system
      0x00, 0x21,                          // partner key
      0x00, 0xFF,                          // partner port priority
      0x00, 0x02,                          // partner port
      0x3D,                                // partner state
      0x00, 0x00, 0x00,                    // reserved
      0x03, 0x10,                          // Collector Information, length 16
      0x12, 0x34,                          // collector max delay
      0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0, 0,  // reserved (12)
      0x00, 0x00,                                            // Terminator, length 0
  };                                                         // followed by 50 reserved octets, zero
  static_assert(sizeof head == 14 + 60);
  for (std::size_t i = 0; i < sizeof head; ++i)
    f[i] = head[i];
  return f;
}

inline constexpr MacAddress kRequesterSystem{0x00, 0x1B, 0x21, 0x3C, 0x4D, 0x5E};
inline constexpr MacAddress kResponderPortMac{0x02, 0x00, 0x00, 0x00, 0x01, 0x02};

// Marker Information from requester port 7, system 00:1b:21:3c:4d:5e, transaction 0xDEADBEEF,
// sent from the requester's port MAC 00:1b:21:3c:4d:5f.
inline SlowFrame marker_request_frame() {
  SlowFrame f{};
  const std::uint8_t head[] = {
      0x01, 0x80, 0xC2, 0x00, 0x00, 0x02,  // destination
      0x00, 0x1B, 0x21, 0x3C, 0x4D, 0x5F,  // source: requester port
      0x88, 0x09,                          // Ethertype
      0x02,                                // subtype Marker
      0x01,                                // version 1
      0x01, 0x10,                          // Marker Information, length 16
      0x00, 0x07,                          // requester port
      0x00, 0x1B, 0x21, 0x3C, 0x4D, 0x5E,  // requester system
      0xDE, 0xAD, 0xBE, 0xEF,              // requester transaction id
      0x00, 0x00,                          // pad
      0x00, 0x00,                          // Terminator, length 0
  };                                       // followed by 90 reserved octets, zero
  static_assert(sizeof head == 14 + 20);
  for (std::size_t i = 0; i < sizeof head; ++i)
    f[i] = head[i];
  return f;
}

// The response braid must send from its port 02:00:00:00:01:02: same fields, TLV type 2.
inline SlowFrame marker_response_frame() {
  SlowFrame f = marker_request_frame();
  const MacAddress& src = kResponderPortMac;
  for (std::size_t i = 0; i < 6; ++i)
    f[6 + i] = src[i];
  f[14 + 2] = 0x02;  // Marker Response TLV
  return f;
}

}  // namespace braid::lacp::golden
