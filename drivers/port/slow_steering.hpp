// Keeping IEEE 802.3 Slow Protocols frames (EtherType 0x8809: LACPDUs, marker PDUs) on an RX
// queue of their own, which only the bond's control thread polls, and keeping every other frame
// off it. How differs per device: an rte_flow rule on NICs that take one (mlx5, ice, ...), an
// emulation on braid's virtual cables (virtual_cable.hpp). Where neither works, the bond falls
// back to workers diverting 0x8809 frames over a ring (doc/bond.md).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace braid::drivers {

// While it exists, the device steers; destroying it removes the steering (for rte_flow, the
// rules: before the port stops, since a PMD without RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP may
// already have dropped them and another may not allow destroying them on a stopped port).
class SlowSteering {
 public:
  virtual ~SlowSteering() = default;
  // How the device steers, for logs and `show port info`.
  virtual std::string description() const = 0;
};

struct SteeringRequest {
  std::uint16_t port_id = 0;
  std::uint16_t data_queues = 1;  // RX queues 0..data_queues-1, polled by workers
  std::uint16_t slow_queue = 1;   // the control thread's RX queue
  // Empty when the RSS redirection table already names data queues only
  // (restrict_rss_to_data_queues); otherwise why not, and a catch-all rule must keep data off
  // the slow queue.
  std::string rss_unrestricted_reason = "not restricted";
  std::uint64_t rss_hash_functions = 0;   // for a catch-all RSS rule over several data queues
  std::span<const std::uint8_t> rss_key;  // empty: the PMD's own key
};

struct SteeringResult {
  std::unique_ptr<SlowSteering> steering;  // null when the device refused
  std::string error;                       // why, in the PMD's words where it gave any
};

// Points every RSS redirection table entry at a data queue, so that RSS never sends data to the
// slow queue. Needs a configured port; PMDs keep a table set before start (ixgbe, i40e, ice and
// mlx5 mark it as the user's). Returns "" on success, else why not.
std::string restrict_rss_to_data_queues(std::uint16_t port_id, std::uint16_t data_queues);

// rte_flow on a started port: ETH type 0x8809 (exact) -> QUEUE slow_queue at priority 0 and,
// unless the RSS table is restricted, ETH (anything) -> the data queues at priority 1. Each rule
// is validated before it is created.
SteeringResult steer_with_rte_flow(const SteeringRequest& request);

}  // namespace braid::drivers
