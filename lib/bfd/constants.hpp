// BFD protocol constants: the Control packet (RFC 5880 4.1), its timers (6.8.3, 6.8.7) and the
// encapsulations braid speaks: RFC 7130 micro-BFD on LAG members and RFC 5881 single-hop.
// Intervals are in microseconds, as on the wire; times are nanoseconds of the injected clock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace braid::bfd {

using MacAddress = std::array<std::uint8_t, 6>;

inline constexpr std::uint64_t kNsPerUs = 1'000;
inline constexpr std::uint64_t kNsPerSecond = 1'000'000'000;

// RFC 5880 4.1: version 1; the mandatory section is 24 octets; an Authentication Section starts
// with Auth Type and Auth Len, so a packet with the A bit is at least 26 octets.
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kControlPacketLen = 24;
inline constexpr std::size_t kAuthHeaderLen = 2;
inline constexpr std::size_t kMinAuthPacketLen = kControlPacketLen + kAuthHeaderLen;

// RFC 5880 6.8.3: while the session is not Up, bfd.DesiredMinTxInterval is at least one second.
inline constexpr std::uint32_t kSlowTxIntervalUs = 1'000'000;
// RFC 5880 6.8.1: bfd.RemoteMinRxInterval starts at 1 microsecond, so the first packets go out at
// our own (slow) rate.
inline constexpr std::uint32_t kInitialRemoteMinRxUs = 1;
// RFC 5880 6.8.7: each interval is reduced by a random 0-25 % (to 75-100 %), and to no more than
// 90 % when bfd.DetectMult is 1. Per mille, the resolution the jitter is drawn at.
inline constexpr std::uint32_t kJitterMinPermille = 750;
inline constexpr std::uint32_t kJitterMaxPermille = 1000;
inline constexpr std::uint32_t kJitterMaxPermilleMult1 = 900;

// braid's bounds and defaults (not in the RFCs). 10 ms x 3 is the fastest the issue asks for and
// what a protocol loop with a 1 ms timer wheel keeps without false detections.
inline constexpr std::uint32_t kMinIntervalUs = 10'000;
inline constexpr std::uint32_t kDefaultDesiredMinTxUs = 50'000;
inline constexpr std::uint32_t kDefaultRequiredMinRxUs = 50'000;
inline constexpr std::uint8_t kDefaultDetectMult = 3;

// RFC 7130 2: micro-BFD uses UDP destination port 6784 and, towards a peer whose MAC is not
// known, the dedicated multicast MAC 01-00-5E-90-00-01. RFC 5881 4: single-hop BFD uses 3784.
inline constexpr std::uint16_t kMicroBfdPort = 6784;
inline constexpr std::uint16_t kSingleHopPort = 3784;
inline constexpr MacAddress kMicroBfdMac{0x01, 0x00, 0x5e, 0x90, 0x00, 0x01};
// RFC 5881 4: the source port is in 49152-65535, the same for all packets of a session.
inline constexpr std::uint16_t kMinSourcePort = 49152;
inline constexpr std::uint16_t kMaxSourcePort = 65535;
// RFC 5881 5 (GTSM, RFC 5082): sent with TTL / Hop Limit 255, and checked on receipt.
inline constexpr std::uint8_t kTtl = 255;
// BFD is network control traffic: DSCP CS6 (RFC 4594), the class routers send BFD in.
inline constexpr std::uint8_t kTrafficClassCs6 = 0xc0;

// Ethernet, IPv4, IPv6 and UDP wire layout.
inline constexpr std::size_t kEthernetHeaderLen = 14;
inline constexpr std::size_t kVlanTagLen = 4;
inline constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEtherTypeIpv6 = 0x86dd;
inline constexpr std::uint16_t kEtherTypeVlan = 0x8100;  // IEEE 802.1Q
inline constexpr std::size_t kIpv4HeaderLen = 20;        // without options
inline constexpr std::size_t kIpv6HeaderLen = 40;
inline constexpr std::size_t kUdpHeaderLen = 8;
inline constexpr std::uint8_t kIpProtoUdp = 17;
// The longest frame braid builds: untagged Ethernet, IPv6, UDP and a packet without
// authentication (86 octets; the IPv4 frame is 66, both over the 60-octet Ethernet minimum).
inline constexpr std::size_t kMaxFrameLen =
    kEthernetHeaderLen + kIpv6HeaderLen + kUdpHeaderLen + kControlPacketLen;

}  // namespace braid::bfd
