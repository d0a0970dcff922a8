// A bond's LLDP agents (IEEE 802.1AB, doc/health.md "LLDP"): on every member unless turned off.
// Plain values, read by lldp_loader and used by the bond's LLDP driver (bond/dpdk/bond_lldp).
#pragma once

#include <cstdint>
#include <string>

namespace braid::config {

struct LldpSettings {
  // On, as on every switch port and in lldpd: a member tells its switch who it is, and
  // `show lldp` says which switch port each member is cabled to. Off: LLDPDUs that arrive on a
  // member pass through to the bond's peer as data (a host LLDP agent behind braid sees them).
  bool enabled = true;
  std::uint32_t tx_interval_s = 30;  // msgTxInterval (802.1AB 9.2.5.7), 1..3600
  std::uint32_t tx_hold = 4;         // msgTxHold: TTL = tx_interval_s x tx_hold + 1, 1..100
  std::string system_name;           // empty: the host name
  std::string system_description;    // empty: "braid DPDK bonding data plane"
  // A member that hears no neighbour this long after its agent started is a cabling finding
  // (`silent`): two of a neighbour's default 30 s intervals.
  std::uint32_t silent_grace_s = 60;
};

}  // namespace braid::config
