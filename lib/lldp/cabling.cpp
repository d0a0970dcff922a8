#include "lldp/cabling.hpp"

#include <algorithm>

namespace braid::lldp {

namespace {

std::string name_of(const HeardNeighbour& neighbour) {
  std::string text = "chassis " + describe(neighbour.chassis_id, true);
  if (!neighbour.system_name.empty()) text = neighbour.system_name + " (" + text + ")";
  return text + " port " + describe(neighbour.port_id, false);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items)
    out += (out.empty() ? "" : separator) + item;
  return out;
}

// One partner System ID behind every member that hears a neighbour: then several chassis are
// the two halves of an MLAG pair.
bool one_lacp_partner(const std::vector<MemberCabling>& members) {
  std::optional<LacpSystemId> partner;
  for (const MemberCabling& member : members) {
    if (member.neighbours.empty()) continue;
    if (!member.lacp_partner) return false;
    if (partner && !(*partner == *member.lacp_partner)) return false;
    partner = member.lacp_partner;
  }
  return partner.has_value();
}

}  // namespace

const char* to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::kSilent:
      return "silent";
    case FindingKind::kSeveralNeighbours:
      return "several_neighbours";
    case FindingKind::kDifferentChassis:
      return "different_chassis";
    case FindingKind::kNotAggregated:
      return "not_aggregated";
  }
  return "unknown";
}

HeardNeighbour heard(const Neighbour& neighbour) {
  return {.chassis_id = neighbour.info.chassis_id,
          .port_id = neighbour.info.port_id,
          .system_name = neighbour.info.system_name.value_or(""),
          .aggregation = neighbour.aggregation};
}

std::vector<Finding> check_cabling(const std::vector<MemberCabling>& members,
                                   std::uint64_t silent_grace_ns) {
  std::vector<Finding> findings;
  for (const MemberCabling& member : members) {
    if (member.neighbours.empty() && member.listening_ns >= silent_grace_ns) {
      findings.push_back({FindingKind::kSilent,
                          {member.member},
                          "member " + member.member + " hears no LLDP neighbour after " +
                              std::to_string(member.listening_ns / kNsPerSecond) + " s"});
    }
    if (member.neighbours.size() > 1) {
      std::vector<std::string> names;
      for (const HeardNeighbour& neighbour : member.neighbours)
        names.push_back(name_of(neighbour));
      findings.push_back(
          {FindingKind::kSeveralNeighbours,
           {member.member},
           "member " + member.member + " hears " + std::to_string(member.neighbours.size()) +
               " LLDP neighbours (a hub or unmanaged switch in between?): " + join(names, ", ")});
    }
  }

  std::vector<Id> chassis;
  for (const MemberCabling& member : members) {
    for (const HeardNeighbour& neighbour : member.neighbours) {
      if (std::find(chassis.begin(), chassis.end(), neighbour.chassis_id) == chassis.end())
        chassis.push_back(neighbour.chassis_id);
    }
  }
  if (chassis.size() > 1 && !one_lacp_partner(members)) {
    Finding finding{FindingKind::kDifferentChassis, {}, ""};
    std::vector<std::string> leads;
    for (const MemberCabling& member : members) {
      if (member.neighbours.empty()) continue;
      finding.members.push_back(member.member);
      leads.push_back(member.member + " -> " + name_of(member.neighbours.front()));
    }
    finding.text = "members lead to " + std::to_string(chassis.size()) +
                   " chassis that are not one LACP partner (mis-cabled?): " + join(leads, ", ");
    findings.push_back(std::move(finding));
  }

  for (const MemberCabling& member : members) {
    for (const HeardNeighbour& neighbour : member.neighbours) {
      if (!neighbour.aggregation || neighbour.aggregation->enabled) continue;
      findings.push_back({FindingKind::kNotAggregated,
                          {member.member},
                          "member " + member.member + ": " + name_of(neighbour) +
                              " says its port is not in an aggregation"});
    }
  }
  return findings;
}

}  // namespace braid::lldp
