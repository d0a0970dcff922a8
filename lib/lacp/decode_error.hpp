// Why a received Slow Protocols frame was rejected. Every rejection is counted per port under
// one of these names (counters.hpp); the names are stable because telemetry exports them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace braid::lacp {

enum class DecodeError : std::uint8_t {
  kNone = 0,
  kTooShort,             // frame shorter than the PDU it claims to be
  kBadDestination,       // not the Slow Protocols group address 01-80-C2-00-00-02
  kBadEthertype,         // not 0x8809 (VLAN-tagged slow frames included: the adapter untags)
  kUnknownSubtype,       // a Slow Protocol other than LACP (1) or Marker (2), e.g. OAM
  kBadVersion,           // version 0: no such protocol version (6.4.2.3 b, 6.5.3.2 b)
  kBadActorTlv,          // Actor Information TLV type != 1 or length != 20
  kBadPartnerTlv,        // Partner Information TLV type != 2 or length != 20
  kBadCollectorTlv,      // Collector Information TLV type != 3 or length != 16
  kBadTlvLength,         // a version 2+ TLV with length < 2 or running past the frame
  kBadTerminator,        // Terminator TLV missing, or its length != 0
  kBadActorPort,         // Actor port number 0: port numbers start at 1 (6.3.4)
  kBadMarkerTlv,         // Marker TLV type not 1/2 or length != 16
  kBadMarkerTerminator,  // Marker PDU Terminator TLV wrong
  kLoopback,             // LACPDU whose Actor System is our own System: a looped cable or port
  kCount,
};

inline constexpr std::size_t kDecodeErrorCount = static_cast<std::size_t>(DecodeError::kCount);

// snake_case name used by counters, logs and tests ("too_short", ...).
const char* to_string(DecodeError error);

}  // namespace braid::lacp
