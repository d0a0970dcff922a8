// Plain value types shared by the codec and the state machines: the Actor/Partner information
// carried in a LACPDU (6.4.2.3) and the eight Actor_State / Partner_State bits (6.4.2.3 e/m).
#pragma once

#include <cstdint>
#include <string>

#include "lacp/constants.hpp"

namespace braid::lacp {

// 6.4.2.3: bit 0 is the least significant bit of the state octet.
namespace state_bit {
inline constexpr std::uint8_t kActivity = 1u << 0;         // 1 = Active LACP
inline constexpr std::uint8_t kTimeout = 1u << 1;          // 1 = Short Timeout
inline constexpr std::uint8_t kAggregation = 1u << 2;      // 1 = aggregatable, 0 = Individual
inline constexpr std::uint8_t kSynchronization = 1u << 3;  // 1 = IN_SYNC
inline constexpr std::uint8_t kCollecting = 1u << 4;
inline constexpr std::uint8_t kDistributing = 1u << 5;
inline constexpr std::uint8_t kDefaulted = 1u << 6;
inline constexpr std::uint8_t kExpired = 1u << 7;
}  // namespace state_bit

inline bool has_bit(std::uint8_t state, std::uint8_t bit) {
  return (state & bit) != 0;
}
inline void set_bit(std::uint8_t& state, std::uint8_t bit, bool on) {
  state = static_cast<std::uint8_t>(on ? (state | bit) : (state & ~bit));
}

// The state octet decoded for people: the console and telemetry show these.
struct StateBits {
  bool activity = false;
  bool short_timeout = false;
  bool aggregation = false;
  bool synchronization = false;
  bool collecting = false;
  bool distributing = false;
  bool defaulted = false;
  bool expired = false;
};
StateBits decode_state(std::uint8_t state);
// Compact form used by logs: one letter per set bit, '.' otherwise, in bit order
// A(ctive) T(short timeout) G(aggregatable) S(ync) C(ollecting) D(istributing) F(defaulted)
// E(xpired).
std::string state_string(std::uint8_t state);
std::string mac_string(const MacAddress& mac);

// Actor or Partner information as carried in a LACPDU (6.4.2.3 c-e, h-m).
struct PortInfo {
  std::uint16_t system_priority = 0;
  MacAddress system{};
  std::uint16_t key = 0;
  std::uint16_t port_priority = 0;
  std::uint16_t port_number = 0;
  std::uint8_t state = 0;
  bool operator==(const PortInfo&) const = default;
};

enum class LacpActivity : std::uint8_t { kPassive, kActive };
enum class LacpTimeout : std::uint8_t { kLong, kShort };
// 6.4.15: Mux machine with coupled control (Figure 6-22) or independent control (Figure 6-21).
enum class MuxMode : std::uint8_t { kCoupled, kIndependent };
// 6.4.8 Selected.
enum class Selected : std::uint8_t { kUnselected, kSelected, kStandby };

}  // namespace braid::lacp
