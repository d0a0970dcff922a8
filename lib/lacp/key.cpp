#include "lacp/key.hpp"

namespace braid::lacp {

SpeedClass speed_class(std::uint32_t speed_mbps) {
  switch (speed_mbps) {
    case 10:
      return SpeedClass::k10M;
    case 100:
      return SpeedClass::k100M;
    case 1'000:
      return SpeedClass::k1G;
    case 2'500:
      return SpeedClass::k2_5G;
    case 5'000:
      return SpeedClass::k5G;
    case 10'000:
      return SpeedClass::k10G;
    case 25'000:
      return SpeedClass::k25G;
    case 40'000:
      return SpeedClass::k40G;
    case 50'000:
      return SpeedClass::k50G;
    case 100'000:
      return SpeedClass::k100G;
    case 200'000:
      return SpeedClass::k200G;
    case 400'000:
      return SpeedClass::k400G;
    case 800'000:
      return SpeedClass::k800G;
    default:
      return SpeedClass::kUnknown;
  }
}

std::uint16_t derive_port_key(std::uint32_t speed_mbps, bool full_duplex, std::uint16_t user_key) {
  const unsigned speed_bits = static_cast<unsigned>(speed_class(speed_mbps)) << 1;
  const unsigned user_bits = static_cast<unsigned>(user_key & kMaxUserKey) << 6;
  return static_cast<std::uint16_t>(user_bits | speed_bits | (full_duplex ? 1u : 0u));
}

}  // namespace braid::lacp
