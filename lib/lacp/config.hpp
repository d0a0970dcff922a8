// Administrative settings: one SystemConfig per bond, one PortConfig per member port.
// Defaults are what doc/lacp.md promises; change both together.
#pragma once

#include <cstdint>
#include <optional>

#include "lacp/constants.hpp"
#include "lacp/types.hpp"

namespace braid::lacp {

// Which aggregator carries traffic when the ports end up in more than one (different partner
// systems, different keys, fallback individual ports). Linux bonding's ad_select.
enum class AggregatorSelect : std::uint8_t {
  kStable,     // keep the active aggregator while it has a usable port (Linux default)
  kBandwidth,  // most total link speed
  kCount,      // most ports
};

struct SystemConfig {
  std::uint16_t system_priority = 0x8000;  // 6.4.7 Actor_System_Priority default 32768
  MacAddress system_mac{};                 // must be a unicast MAC unique to this bond
  AggregatorSelect aggregator_select = AggregatorSelect::kStable;
  // Largest number of ports distributing in the active aggregator (0 = no limit); the others are
  // STANDBY (6.4.14.1 g). Priority follows the System with the better System ID (6.4.14.2).
  std::uint16_t max_active_ports = 0;
  std::uint16_t collector_max_delay = 0;  // tens of microseconds, sent in the Collector TLV
  std::size_t event_log_capacity = 256;
};

struct PortConfig {
  std::uint16_t port_number = 0;  // 1-based, unique within the system (6.3.4)
  std::uint16_t port_priority = 0x00FF;
  MacAddress port_mac{};             // source MAC of the LACPDUs sent on this port
  std::optional<std::uint16_t> key;  // explicit operational key; nullopt = derive_port_key()
  std::uint16_t user_key = 0;        // upper 10 bits of a derived key (key.hpp)
  LacpActivity activity = LacpActivity::kActive;
  LacpTimeout timeout = LacpTimeout::kShort;
  bool aggregatable = true;  // false: the port is Individual (Aggregation bit 0)
  std::uint64_t aggregate_wait_ns = kAggregateWaitTime;
  // With fallback, a port whose partner never speaks LACP (DEFAULTED) is used as an Individual
  // link (the bond then runs active-backup over such ports) instead of carrying no traffic. It
  // engages only while nothing suggests a LACP partner or a dead link: no LACPDU of any kind
  // (valid, rejected, or our own looped back) for kLongTimeoutTime, and frames from the far end
  // within kFallbackNeighbourWindow (LacpSystem::on_neighbour_frames). Off by default, as in
  // Open vSwitch (lacp-fallback-ab) and on switches (doc/lacp.md, "Fallback").
  bool fallback = false;
  MuxMode mux_mode = MuxMode::kCoupled;
};

}  // namespace braid::lacp
