// BFD Control packet codec (RFC 5880 4.1): the 24-octet mandatory section and the header of an
// optional Authentication Section. The decoder applies the packet checks of RFC 5880 6.8.6 that
// need no session (the session checks the discriminator it is addressed to); it reads nothing
// past the span it is given and never throws.
#pragma once

#include <array>
#include <cstdint>

#include "bfd/constants.hpp"
#include "bfd/reject_reason.hpp"
#include "bfd/types.hpp"
#include "common/bytes.hpp"

namespace braid::bfd {

struct ControlPacket {
  std::uint8_t version = kVersion;
  Diag diag = Diag::kNone;
  State state = State::kDown;
  bool poll = false;                       // P
  bool final = false;                      // F
  bool control_plane_independent = false;  // C
  bool auth_present = false;               // A
  bool demand = false;                     // D
  bool multipoint = false;                 // M, always 0 on the wire
  std::uint8_t detect_mult = 0;
  std::uint8_t length = kControlPacketLen;  // as received; the encoder writes 24
  std::uint32_t my_discriminator = 0;
  std::uint32_t your_discriminator = 0;
  std::uint32_t desired_min_tx_us = 0;
  std::uint32_t required_min_rx_us = 0;
  std::uint32_t required_min_echo_rx_us = 0;
  // The Authentication Section's header, when `auth_present` (the decoder fills it in before it
  // rejects the packet, so a log can say which type the peer wanted).
  AuthType auth_type = AuthType::kReserved;
  std::uint8_t auth_len = 0;

  bool operator==(const ControlPacket&) const = default;
};

using ControlPacketBytes = std::array<std::uint8_t, kControlPacketLen>;

// Encodes the mandatory section: Length 24, no Authentication Section (the A bit is written as
// given, so tests can build packets the decoder must refuse).
ControlPacketBytes encode_control_packet(const ControlPacket& packet);

// Decodes `payload`, the whole UDP payload. Length may be shorter than the payload (octets
// after it are ignored) but not longer. Returns kNone and fills `out`, or the first check that
// failed (`out` then holds what was read so far).
RejectReason decode_control_packet(ByteSpan payload, ControlPacket& out);

}  // namespace braid::bfd
