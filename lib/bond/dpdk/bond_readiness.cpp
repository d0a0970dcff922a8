#include "bond/dpdk/bond_readiness.hpp"

#include "bond/dpdk/bond.hpp"
#include "control/control_plane.hpp"

namespace braid::bond {

std::string BondReadiness::status() const {
  if (up()) return "up";
  return usable == 0 || usable >= min_links ? "down (no member distributing)"
                                            : "down (below min_links)";
}

BondReadiness readiness_of(const Bond& bond) {
  BondReadiness readiness;
  readiness.min_links = bond.config().min_links;
  const std::vector<MemberStatus> members = bond.members();
  for (std::size_t m = 0; m < members.size(); ++m) {
    ++readiness.members;
    readiness.usable += bond.usable(m) ? 1 : 0;
    readiness.distributing += members[m].distributing ? 1 : 0;
  }
  return readiness;
}

void register_readiness_endpoint(control::ControlPlane& control, const std::vector<Bond*>& bonds) {
  control.add_http_rendered("/readyz", [bonds] {
    std::string lines;
    std::size_t down = 0;
    for (const Bond* bond : bonds) {
      const BondReadiness r = readiness_of(*bond);
      down += r.up() ? 0 : 1;
      lines += "bond " + bond->name() + ": " + r.status() + ", " + std::to_string(r.usable) +
               " of " + std::to_string(r.members) + " members usable, " +
               std::to_string(r.distributing) + " distributing, min_links " +
               std::to_string(r.min_links) + "\n";
    }
    if (down == 0) {
      return control::HttpAnswer{
          200, "ready\n" + (bonds.empty() ? std::string("no bonds configured\n") : lines)};
    }
    return control::HttpAnswer{503, "not ready: " + std::to_string(down) + " of " +
                                        std::to_string(bonds.size()) + " bonds below min_links\n" +
                                        lines};
  });
}

}  // namespace braid::bond
