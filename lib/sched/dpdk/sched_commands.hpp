// The scheduler's part of the control plane: `show scheduler [<bond>]`, `set bond <b> policy
// hash|wrr|lqf|adaptive`, `set bond <b> weight <member> <weight>`, `set bond <b> flowlet gap
// <microseconds>`, the /braid/scheduler telemetry endpoint and the braid_member_effective_weight,
// braid_member_pfc_pause_total, braid_member_ecn_marked_total and braid_member_cnp_total
// metrics. Runs on the control thread through BondScheduler's public API; the <bond> and
// <member> parameters are the ones bond_commands defines.
#pragma once

#include <vector>

namespace braid::control {
class ControlPlane;
}

namespace braid::bond {
class Bond;
}

namespace braid::sched {

class BondScheduler;

struct ScheduledBond {
  bond::Bond* bond = nullptr;
  BondScheduler* scheduler = nullptr;
};

// Register after register_bond_commands (it defines <bond> and <member>). The bonds and their
// schedulers must outlive the control plane's use of them (both live in braid's run()).
void register_sched_commands(control::ControlPlane& control, std::vector<ScheduledBond> bonds);

}  // namespace braid::sched
