#include "lacp/types.hpp"

#include <cstdio>

namespace braid::lacp {

StateBits decode_state(std::uint8_t state) {
  return StateBits{
      .activity = has_bit(state, state_bit::kActivity),
      .short_timeout = has_bit(state, state_bit::kTimeout),
      .aggregation = has_bit(state, state_bit::kAggregation),
      .synchronization = has_bit(state, state_bit::kSynchronization),
      .collecting = has_bit(state, state_bit::kCollecting),
      .distributing = has_bit(state, state_bit::kDistributing),
      .defaulted = has_bit(state, state_bit::kDefaulted),
      .expired = has_bit(state, state_bit::kExpired),
  };
}

std::string state_string(std::uint8_t state) {
  static constexpr char kLetters[] = "ATGSCDFE";
  std::string out(8, '.');
  for (unsigned bit = 0; bit < 8; ++bit) {
    if (has_bit(state, static_cast<std::uint8_t>(1u << bit))) out[bit] = kLetters[bit];
  }
  return out;
}

std::string mac_string(const MacAddress& mac) {
  char text[18];
  std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
                mac[4], mac[5]);
  return text;
}

}  // namespace braid::lacp
