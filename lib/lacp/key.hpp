// Operational key derived from link speed and duplex (6.3.5: ports that can aggregate share a
// key; links of different speeds must not). Layout, the same as Linux bonding's so that a key
// read off a capture means the same thing on both:
//   bit 0      1 = full duplex
//   bits 1..5  speed class (SpeedClass below; 0 = unknown speed)
//   bits 6..15 user key (0..1023), Linux's ad_user_port_key
#pragma once

#include <cstdint>

namespace braid::lacp {

enum class SpeedClass : std::uint8_t {
  kUnknown = 0,
  k10M = 1,
  k100M = 2,
  k1G = 3,
  k2_5G = 4,
  k5G = 5,
  k10G = 6,
  k25G = 7,
  k40G = 8,
  k50G = 9,
  k100G = 10,
  k200G = 11,
  k400G = 12,
  k800G = 13,
};

inline constexpr std::uint16_t kMaxUserKey = 0x3FF;

// Exact match on the Mbit/s values ethdev and ethtool report; anything else is kUnknown.
SpeedClass speed_class(std::uint32_t speed_mbps);

// user_key above kMaxUserKey is truncated to its low 10 bits.
std::uint16_t derive_port_key(std::uint32_t speed_mbps, bool full_duplex, std::uint16_t user_key);

}  // namespace braid::lacp
