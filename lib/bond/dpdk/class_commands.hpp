// Traffic classes on the console (`show classes [<bond>]`), in telemetry (/braid/classes) and in
// /metrics (braid_class_packets_total): each class of a bond, the rules that name it, and the
// data frames the workers classified into it (doc/classes.md).
#pragma once

#include <vector>

#include "control/control_plane.hpp"

namespace braid::bond {

class Bond;

void register_class_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds);

}  // namespace braid::bond
