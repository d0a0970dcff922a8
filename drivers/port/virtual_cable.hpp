// A virtual cable between two ports of one braid process: device "cable:NAME/a" and
// "cable:NAME/b" are the two ends of one pair of rte_rings, each end a real net_ring ethdev
// (rte_eth_from_rings) whose TX ring is the other end's RX ring. The bond demo wires braid's
// bond to a second, partner bond this way, so LACP runs between two independent LACP systems
// without NICs. Not for production configs (there, a device is a NIC or a vdev).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace braid::drivers {

inline constexpr const char* kCablePrefix = "cable:";

// True when `device` names a cable end.
bool is_cable_device(const std::string& device);

// Creates (or finds) the ethdev for a cable end; throws std::runtime_error with what is wrong.
std::uint16_t open_cable_end(const std::string& device);

}  // namespace braid::drivers
