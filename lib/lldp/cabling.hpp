// The bond's cabling check (issue 15): from what LLDP heard on every member and whom LACP sees
// as the partner, says what looks wrong with the cabling. Plain values in, findings out: the
// control thread builds the input from the agents and the LACP ports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lldp/agent.hpp"
#include "lldp/lldpdu.hpp"

namespace braid::lldp {

// A member hearing nothing for this long is reported (two periods of the default msgTxInterval:
// a neighbour that sends every 30 s has had two chances).
inline constexpr std::uint64_t kDefaultSilentGraceNs = 60 * kNsPerSecond;

// LACP's partner System ID (IEEE 802.1AX 6.3.2): priority and MAC.
struct LacpSystemId {
  std::uint16_t priority = 0;
  MacAddress mac{};
  bool operator==(const LacpSystemId&) const = default;
};

struct HeardNeighbour {
  Id chassis_id{};
  Id port_id{};
  std::string system_name{};                     // empty when not announced
  std::optional<LinkAggregation> aggregation{};  // the neighbour's link aggregation TLV
};
HeardNeighbour heard(const Neighbour& neighbour);

struct MemberCabling {
  std::string member{};                        // the member's port name
  std::vector<HeardNeighbour> neighbours{};    // what its agent knows now
  std::optional<LacpSystemId> lacp_partner{};  // none: no LACP, or no partner yet
  std::uint64_t listening_ns = 0;              // how long its agent has been running
};

enum class FindingKind : std::uint8_t {
  kSilent,             // a member hears no neighbour after the grace period
  kSeveralNeighbours,  // a member hears more than one: a hub or unmanaged switch in between
  kDifferentChassis,   // members lead to different chassis that are not one LACP partner
  kNotAggregated,      // the neighbour's port says it is not in an aggregation
};
const char* to_string(FindingKind kind);  // "silent", "several_neighbours", ...

struct Finding {
  FindingKind kind = FindingKind::kSilent;
  std::vector<std::string> members{};  // the members concerned
  std::string text{};                  // one line for logs and show lldp
};

// Findings in member order, kSilent and kSeveralNeighbours per member, then kDifferentChassis
// once for the bond, then kNotAggregated per member. Two chassis behind one LACP partner System
// ID (an MLAG pair) are fine.
std::vector<Finding> check_cabling(const std::vector<MemberCabling>& members,
                                   std::uint64_t silent_grace_ns = kDefaultSilentGraceNs);

}  // namespace braid::lldp
