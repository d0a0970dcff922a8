// Why a received BFD frame or Control packet was discarded. Every discard is counted per session
// under one of these names (counters.hpp); the names are stable because telemetry exports them.
// The frame parser (frame.hpp), the packet decoder (control_packet.hpp) and the session
// (session.hpp) each own a range, in the order a packet meets them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace braid::bfd {

enum class RejectReason : std::uint8_t {
  kNone = 0,
  // The frame (Ethernet, IP, UDP): frame.cpp.
  kFrameTooShort,      // shorter than the headers it announces
  kBadDestinationMac,  // micro-BFD: neither 01-00-5E-90-00-01 nor ours; single-hop: not ours
  kBadEthertype,       // not IPv4 or IPv6 (after at most one 802.1Q tag)
  kBadIpHeader,        // wrong IP version, IHL < 5, or a total / payload length that lies
  kIpFragment,         // a fragment: BFD Control packets are never fragmented
  kBadIpChecksum,      // IPv4 header checksum wrong
  kBadTtl,             // TTL / Hop Limit not 255 (RFC 5881 5, GTSM): not from a neighbour
  kNotUdp,             // not UDP (IPv6: extension headers included, braid sends none)
  kBadDestinationIp,   // not our configured address
  kBadUdpPort,         // not the encapsulation's port (6784 micro-BFD, 3784 single-hop)
  kBadUdpLength,       // UDP length < 8 or past the IP payload
  kBadUdpChecksum,     // wrong, or zero over IPv6 (RFC 8200 8.1: mandatory)
  // The Control packet (RFC 5880 6.8.6): control_packet.cpp.
  kPacketTooShort,         // fewer than 24 octets of UDP payload
  kBadVersion,             // version != 1
  kBadLength,              // Length < 24, or < 26 with the A bit
  kLengthPastPayload,      // Length larger than the UDP payload
  kZeroDetectMult,         // Detect Mult 0
  kMultipoint,             // M bit set (reserved for multipoint, RFC 5880 4.1)
  kZeroMyDiscriminator,    // My Discriminator 0
  kZeroYourDiscriminator,  // Your Discriminator 0 while State is Init or Up
  kBadAuthLength,          // Auth Len < 2 or past Length
  kAuthUnsupported,        // A bit set: braid implements no authentication type
  // The session (RFC 5880 6.8.6): session.cpp.
  kYourDiscriminatorMismatch,  // Your Discriminator is not this session's My Discriminator
  kLocalAdminDown,             // the session is AdminDown: the packet is read, then discarded
  kCount,
};

inline constexpr std::size_t kRejectReasonCount = static_cast<std::size_t>(RejectReason::kCount);

// snake_case name used by counters, logs and tests ("bad_ttl", ...).
const char* to_string(RejectReason reason);

}  // namespace braid::bfd
