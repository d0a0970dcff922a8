// The bond's part of the control plane: `show bond`, `show lacp [detail]`, `show distribution`,
// `set member <m> up|down`, `set bond <b> lacp rate fast|slow`, the /braid/bond and /braid/lacp
// telemetry endpoints, member health (health_commands.hpp), the metrics of bond_metrics.hpp and
// /readyz (bond_readiness.hpp). Everything runs on the control thread through Bond's public API.
#pragma once

#include <string>
#include <vector>

namespace braid::control {
class Args;
class ControlPlane;
}  // namespace braid::control

namespace braid::bond {

class Bond;

// The bonds must outlive the control plane's use of them (both live in braid's run()).
void register_bond_commands(control::ControlPlane& control, std::vector<Bond*> bonds);
// The bonds a command names: the one in its <bond> argument, every bond without one.
std::vector<Bond*> chosen_bonds(const std::vector<Bond*>& bonds, const control::Args& args);
// `count` of `total` as a percentage with one decimal ("12.5%").
std::string share_text(std::uint32_t count, std::size_t total);

}  // namespace braid::bond
