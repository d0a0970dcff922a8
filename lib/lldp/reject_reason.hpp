// Why a received LLDP frame was discarded (IEEE 802.1AB-2016 9.2.7.7, rxProcessFrame). Every
// discard is counted per member under one of these names (agent.hpp); the names are stable
// because telemetry exports them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace braid::lldp {

enum class RejectReason : std::uint8_t {
  kNone = 0,
  // The Ethernet header.
  kFrameTooShort,      // shorter than the Ethernet header (after at most one 802.1Q tag)
  kBadDestinationMac,  // not the nearest-bridge group address 01-80-C2-00-00-0E
  kBadEthertype,       // not 0x88CC
  // The TLV sequence (8.2, 9.2.7.7.1).
  kTlvHeaderTruncated,     // fewer than 2 octets left for a TLV header, and they are not padding
  kTlvPastFrame,           // a TLV's length runs past the end of the frame
  kMissingChassisId,       // the first TLV is not a Chassis ID TLV
  kMissingPortId,          // the second TLV is not a Port ID TLV
  kMissingTtl,             // the third TLV is not a Time To Live TLV
  kDuplicateMandatoryTlv,  // a second Chassis ID, Port ID or TTL TLV
  // TLV contents (8.5).
  kBadChassisIdLength,     // information string not 2-256 octets, or wrong for its subtype
  kBadChassisIdSubtype,    // subtype 0 or 8-255 (reserved)
  kBadPortIdLength,        // information string not 2-256 octets, or wrong for its subtype
  kBadPortIdSubtype,       // subtype 0 or 8-255 (reserved)
  kBadTtlLength,           // TTL information string not 2 octets
  kBadEndLength,           // End Of LLDPDU TLV with a non-zero length
  kBadStringLength,        // Port Description, System Name or System Description over 255 octets
  kBadCapabilitiesLength,  // System Capabilities not 4 octets
  kBadManagementAddressLength,  // Management Address TLV whose inner lengths do not add up
  kBadOrgSpecificLength,        // Organizationally Specific TLV shorter than OUI + subtype
  kCount,
};

inline constexpr std::size_t kRejectReasonCount = static_cast<std::size_t>(RejectReason::kCount);

// snake_case name used by counters, logs and tests ("missing_ttl", ...).
const char* to_string(RejectReason reason);

}  // namespace braid::lldp
