// BFD on the console (`show bfd [<bond>]`, `set bfd <member> admin-down|admin-up`), in telemetry
// (/braid/bfd) and in /metrics (braid_bfd_*). Everything reads the bonds' BFD sessions on the
// protocol loop, where they run (bond_bfd.hpp, doc/health.md#bfd).
#pragma once

#include <vector>

#include "control/control_plane.hpp"

namespace braid::bond {

class Bond;

// After register_bond_commands (it defines <bond> and <member>).
void register_bfd_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds);

}  // namespace braid::bond
