// A virtual cable between two ports of one braid process: device "cable:NAME/a" and
// "cable:NAME/b" are the two ends of one pair of rte_rings, each end a real net_ring ethdev
// (rte_eth_from_rings) whose TX ring is the other end's RX ring. The bond demo wires braid's
// bond to a second, partner bond this way, so LACP runs between two independent LACP systems
// without NICs. Not for production configs (there, a device is a NIC or a vdev).
//
// Each end has a second RX ring, its slow-protocol queue: while steering is on
// (steer_cable_slow_protocols), frames of EtherType 0x8809 that reach the data queue are moved
// there inside rte_eth_rx_burst, as a NIC with an rte_flow rule would have queued them.
#pragma once

#include <rte_ring.h>

#include <cstdint>
#include <optional>
#include <string>

#include "port/slow_steering.hpp"

namespace braid::drivers {

inline constexpr const char* kCablePrefix = "cable:";

// True when `device` names a cable end.
bool is_cable_device(const std::string& device);

// Creates (or finds) the ethdev for a cable end; throws std::runtime_error with what is wrong.
std::uint16_t open_cable_end(const std::string& device);

// The ring behind a cable end's slow-protocol RX queue (RX queue 1), or nullptr when `device`
// is not an open cable end. Tests put frames there to play a NIC that mis-steers.
rte_ring* cable_slow_ring(const std::string& device);

// Emulated steering on a cable end configured with one data queue and the slow queue.
SteeringResult steer_cable_slow_protocols(const std::string& device,
                                          const SteeringRequest& request);

}  // namespace braid::drivers
