// Read-only picture of a LacpSystem for the console and telemetry: identities, decoded state
// bits, each machine's state name, the bond-facing flags and the counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lacp/counters.hpp"
#include "lacp/types.hpp"

namespace braid::lacp {

struct PortSnapshot {
  std::uint16_t port_number = 0;
  MacAddress port_mac{};
  bool link_up = false;
  bool full_duplex = false;
  std::uint32_t speed_mbps = 0;
  PortInfo actor;    // Actor_* operational values, as sent
  PortInfo partner;  // Partner_Oper_* values
  StateBits actor_state;
  StateBits partner_state;
  const char* receive_state = "";
  const char* periodic_state = "";
  const char* mux_state = "";
  const char* selected = "";
  const char* actor_churn_state = "";
  const char* partner_churn_state = "";
  int aggregator = -1;  // 0-based aggregator index, -1 = none
  bool collecting = false;
  bool distributing = false;
  bool actor_churn = false;
  bool partner_churn = false;
  const char* fallback = "off";       // FallbackState (port.hpp)
  std::uint64_t lacpdu_heard_ns = 0;  // last LACPDU of any kind; 0: never
  bool withdrawn = false;             // LacpSystem::set_withdrawn
  // While withdrawn, when the partner said it stopped distributing to us (withdrawal.hpp).
  std::optional<std::uint64_t> partner_released_ns;
  // A restart's saved state (resume.hpp): what came of it, and when the port resumed.
  const char* resume_outcome = "none";
  std::optional<std::uint64_t> resumed_ns;
  PortCounters counters;
};

struct SystemSnapshot {
  std::uint16_t system_priority = 0;
  MacAddress system_mac{};
  int active_aggregator = -1;
  std::uint64_t generation = 0;
  std::vector<PortSnapshot> ports;
};

// Multi-line human-readable rendering (what the console's "show lacp" prints).
std::string format_snapshot(const SystemSnapshot& snapshot);

}  // namespace braid::lacp
