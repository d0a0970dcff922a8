// IEEE 802.1AX-2014 protocol constants: timers (6.4.4), wire layout of the Slow Protocols
// frame (6.2.11, 6.4.2.3) and of the Marker PDUs (6.5.3). Times are in nanoseconds because
// the engine is driven by an injected monotonic clock in ns.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace braid::lacp {

using MacAddress = std::array<std::uint8_t, 6>;

inline constexpr std::uint64_t kNsPerSecond = 1'000'000'000;

// 6.4.4 Constants.
inline constexpr std::uint64_t kFastPeriodicTime = 1 * kNsPerSecond;
inline constexpr std::uint64_t kSlowPeriodicTime = 30 * kNsPerSecond;
inline constexpr std::uint64_t kShortTimeoutTime = 3 * kNsPerSecond;
inline constexpr std::uint64_t kLongTimeoutTime = 90 * kNsPerSecond;
inline constexpr std::uint64_t kChurnDetectionTime = 60 * kNsPerSecond;
inline constexpr std::uint64_t kAggregateWaitTime = 2 * kNsPerSecond;
// 6.4.16: no more than three LACPDUs in any Fast_Periodic_Time interval.
inline constexpr unsigned kMaxTxPerFastPeriodic = 3;
// 802.3 Annex 57A: Slow Protocols send at most 10 frames per second per port; applied to the
// Marker Responder so that a flood of Marker Information PDUs cannot turn into a flood of replies.
inline constexpr unsigned kMaxMarkerResponsesPerSecond = 10;

// braid's own timing (not in the standard).
// A LACPDU the port could not send (TX queue full, no mbuf) is tried again after this long; NTT
// stays set meanwhile (transmit_machine.cpp).
inline constexpr std::uint64_t kTxRetryTime = 10'000'000;  // 10 ms
// Fallback (config.hpp) needs proof that something lives at the far end and does not speak
// LACP: frames received within this window, and no LACPDU of any kind for kLongTimeoutTime.
inline constexpr std::uint64_t kFallbackNeighbourWindow = 3 * kNsPerSecond;

// 6.2.11 / 802.3 Annex 57A: Slow Protocols destination address and Ethertype.
inline constexpr MacAddress kSlowProtocolsAddress{0x01, 0x80, 0xC2, 0x00, 0x00, 0x02};
inline constexpr std::uint16_t kSlowProtocolsEthertype = 0x8809;
inline constexpr std::uint8_t kLacpSubtype = 1;    // 6.4.2.3 a)
inline constexpr std::uint8_t kMarkerSubtype = 2;  // 6.5.3.2 a)
inline constexpr std::uint8_t kLacpVersion = 1;    // 6.4.2.3 b)
inline constexpr std::uint8_t kMarkerVersion = 1;  // 6.5.3.2 b)

inline constexpr std::size_t kEthernetHeaderLen = 14;
inline constexpr std::size_t kSlowPduLen = 110;  // LACPDU and Marker PDU payload, padded
inline constexpr std::size_t kSlowFrameLen = kEthernetHeaderLen + kSlowPduLen;  // 124, no FCS

// 6.4.2.3 TLV types and lengths of a version 1 LACPDU.
inline constexpr std::uint8_t kTlvTerminator = 0;
inline constexpr std::uint8_t kTlvActorInformation = 1;
inline constexpr std::uint8_t kTlvPartnerInformation = 2;
inline constexpr std::uint8_t kTlvCollectorInformation = 3;
inline constexpr std::uint8_t kActorInformationLength = 20;
inline constexpr std::uint8_t kPartnerInformationLength = 20;
inline constexpr std::uint8_t kCollectorInformationLength = 16;
inline constexpr std::uint8_t kTerminatorLength = 0;

// Offsets inside the 110-octet LACPDU (after the Ethertype), 6.4.2.3 Figure 6-7.
inline constexpr std::size_t kPduSubtypeOffset = 0;
inline constexpr std::size_t kPduVersionOffset = 1;
inline constexpr std::size_t kActorTlvOffset = 2;
inline constexpr std::size_t kPartnerTlvOffset = 22;
inline constexpr std::size_t kCollectorTlvOffset = 42;
inline constexpr std::size_t kTerminatorTlvOffset = 58;
// Inside an Actor/Partner TLV, from its type octet.
inline constexpr std::size_t kInfoSystemPriorityOffset = 2;
inline constexpr std::size_t kInfoSystemOffset = 4;
inline constexpr std::size_t kInfoKeyOffset = 10;
inline constexpr std::size_t kInfoPortPriorityOffset = 12;
inline constexpr std::size_t kInfoPortOffset = 14;
inline constexpr std::size_t kInfoStateOffset = 16;
inline constexpr std::size_t kCollectorMaxDelayOffset = 2;

// 6.5.3.2 Marker PDU: Marker Information (1) / Marker Response (2) TLV, length 16.
inline constexpr std::uint8_t kTlvMarkerInformation = 1;
inline constexpr std::uint8_t kTlvMarkerResponse = 2;
inline constexpr std::uint8_t kMarkerInformationLength = 16;
inline constexpr std::size_t kMarkerTlvOffset = 2;
inline constexpr std::size_t kMarkerRequesterPortOffset = 4;
inline constexpr std::size_t kMarkerRequesterSystemOffset = 6;
inline constexpr std::size_t kMarkerTransactionIdOffset = 12;
inline constexpr std::size_t kMarkerTerminatorOffset = 18;

}  // namespace braid::lacp
