// Whether a bond can carry traffic: at least min_links of its members usable (Bond::usable: link
// and admin up, LACP distributing), and so distributing: below min_links the bond distributes
// on none of them. One notion for `show bond`'s status, the braid_bond_* metrics and GET /readyz
// (200 when every bond is up, 503 naming each one below min_links), which the protocol loop
// renders with each /metrics snapshot (doc/console.md, "Health").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace braid::control {
class ControlPlane;
}

namespace braid::bond {

class Bond;

struct BondReadiness {
  std::size_t members = 0;
  std::size_t usable = 0;
  std::size_t distributing = 0;
  std::uint32_t min_links = 1;

  bool up() const { return distributing > 0 && usable >= min_links; }
  // What `show bond` prints: "up", "down (below min_links)", "down (no member distributing)".
  std::string status() const;
};

BondReadiness readiness_of(const Bond& bond);

// The bonds must outlive the control plane (both live in braid's run()). Registers /readyz
// even without bonds (then always ready).
void register_readiness_endpoint(control::ControlPlane& control, const std::vector<Bond*>& bonds);

}  // namespace braid::bond
