// LLDP on the console (`show lldp [<bond>]`), in telemetry (/braid/lldp) and in /metrics
// (braid_lldp_*): every member's neighbour, its agent's counters and rejects, and the bond's
// cabling findings, read on the protocol loop where the agents run (doc/health.md "LLDP").
#pragma once

#include <vector>

#include "control/control_plane.hpp"

namespace braid::bond {

class Bond;

void register_lldp_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds);

}  // namespace braid::bond
