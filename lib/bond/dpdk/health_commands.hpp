// Member health on the console (`show health [<bond>]`), in telemetry (/braid/health) and in
// /metrics (braid_member_health_*, braid_member_flap*, braid_member_error_rate_ppm). Everything
// reads the bonds' health models on the protocol loop, where they run (doc/health.md).
#pragma once

#include <vector>

#include "control/control_plane.hpp"

namespace braid::bond {

class Bond;

void register_health_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds);

}  // namespace braid::bond
