#include "bond/dpdk/lldp_commands.hpp"

#include <cstdio>
#include <string>

#include "bond/dpdk/bond.hpp"
#include "bond/dpdk/bond_commands.hpp"
#include "common/clock.hpp"

namespace braid::bond {
namespace {

using control::Args;
using control::MetricType;
using control::Output;

constexpr lldp::FindingKind kFindingKinds[] = {
    lldp::FindingKind::kSilent, lldp::FindingKind::kSeveralNeighbours,
    lldp::FindingKind::kDifferentChassis, lldp::FindingKind::kNotAggregated};

control::Value seconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(ns) / 1e9);
  return control::Value::displayed(static_cast<double>(ns) / 1e9, text);
}

void show_lldp(const Bond& bond, Output& out) {
  Output& section = out.section(bond.name());
  const BondLldp* agents = bond.lldp();
  if (agents == nullptr) {
    section.value("lldp", "off");
    return;
  }
  const std::uint64_t now = monotonic_ns();
  section.value("lldp", "on");
  section.value("chassis_id", lldp::describe(agents->chassis_id(), true));
  section.value("system_name", agents->system_name());
  section.value("tx_interval_s", agents->settings().tx_interval_s);
  section.value("ttl_s", agents->ttl_s());
  control::Table& neighbours =
      section.table("neighbours", {"member", "chassis_id", "port_id", "system_name",
                                   "port_description", "ttl_left_s", "age_s", "aggregated"});
  for (std::size_t m = 0; m < agents->member_count(); ++m) {
    const std::string& member = agents->member_name(m);
    if (agents->agent(m).neighbours().empty()) {
      neighbours.row({member, control::Value::missing(), control::Value::missing(),
                      control::Value::missing(), control::Value::missing(),
                      control::Value::missing(), control::Value::missing(),
                      control::Value::missing()});
      continue;
    }
    for (const lldp::Neighbour& n : agents->agent(m).neighbours()) {
      const control::Value aggregated =
          n.aggregation ? control::Value(n.aggregation->enabled) : control::Value::missing();
      neighbours.row({member, lldp::describe(n.info.chassis_id, true),
                      lldp::describe(n.info.port_id, false), n.info.system_name.value_or(""),
                      n.info.port_description.value_or(""),
                      seconds(n.expires_ns > now ? n.expires_ns - now : 0),
                      seconds(now - n.first_seen_ns), aggregated});
    }
  }
  control::Table& members =
      section.table("members", {"member", "agent", "frames_out", "frames_in", "discarded",
                                "ageouts", "neighbours_dropped", "policed", "tx_failed"});
  for (std::size_t m = 0; m < agents->member_count(); ++m) {
    const lldp::AgentCounters& c = agents->agent(m).counters();
    const LldpMemberCounters& own = agents->counters(m);
    members.row({agents->member_name(m), agents->agent(m).running() ? "running" : "stopped",
                 c.frames_out, c.frames_in, c.discarded_total, c.ageouts, c.drops, own.policed,
                 own.tx_failed});
  }
  control::Table& rejects = section.table("rejects", {"member", "reason", "frames"});
  for (std::size_t m = 0; m < agents->member_count(); ++m) {
    const lldp::AgentCounters& c = agents->agent(m).counters();
    for (std::size_t r = 1; r < lldp::kRejectReasonCount; ++r) {
      if (c.discarded[r] == 0) continue;
      rejects.row({agents->member_name(m), lldp::to_string(static_cast<lldp::RejectReason>(r)),
                   c.discarded[r]});
    }
  }
  control::Table& findings = section.table("findings", {"finding", "members", "text"});
  for (const lldp::Finding& finding : agents->findings()) {
    std::string names;
    for (const std::string& name : finding.members)
      names += (names.empty() ? "" : ",") + name;
    findings.row({lldp::to_string(finding.kind), names, finding.text});
  }
}

void lldp_metrics(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  struct Row {
    control::Labels labels;
    const BondLldp* agents;
    std::size_t member;
  };
  std::vector<Row> rows;
  for (Bond* bond : bonds) {
    const BondLldp* agents = bond->lldp();
    if (agents == nullptr) continue;
    for (std::size_t m = 0; m < agents->member_count(); ++m)
      rows.push_back({{{"bond", bond->name()}, {"member", agents->member_name(m)}}, agents, m});
  }
  const auto counter = [&](const char* name, const char* help, auto read) {
    w.family(name, help, MetricType::kCounter);
    for (const Row& row : rows)
      w.sample(row.labels, static_cast<std::uint64_t>(read(*row.agents, row.member)));
  };
  w.family("braid_lldp_neighbours", "LLDP neighbours the member hears now", MetricType::kGauge);
  for (const Row& row : rows)
    w.sample(row.labels, std::uint64_t{row.agents->agent(row.member).neighbours().size()});
  counter("braid_lldp_frames_out_total", "LLDPDUs the member's agent sent (shutdowns included)",
          [](const BondLldp& l, std::size_t m) { return l.agent(m).counters().frames_out; });
  counter("braid_lldp_frames_in_total", "LLDPDUs the member's agent accepted",
          [](const BondLldp& l, std::size_t m) { return l.agent(m).counters().frames_in; });
  counter("braid_lldp_ageouts_total", "neighbours forgotten because their TTL ran out",
          [](const BondLldp& l, std::size_t m) { return l.agent(m).counters().ageouts; });
  counter("braid_lldp_policed_total", "LLDPDUs over the protocol loop's per-member limit, dropped",
          [](const BondLldp& l, std::size_t m) { return l.counters(m).policed; });
  w.family("braid_lldp_frames_discarded_total",
           "LLDPDUs the member's agent refused, by reason (lib/lldp/reject_reason.hpp)",
           MetricType::kCounter);
  for (const Row& row : rows) {
    const lldp::AgentCounters& c = row.agents->agent(row.member).counters();
    for (std::size_t r = 1; r < lldp::kRejectReasonCount; ++r) {
      if (c.discarded[r] == 0) continue;
      control::Labels labels = row.labels;
      labels.emplace_back("reason", lldp::to_string(static_cast<lldp::RejectReason>(r)));
      w.sample(labels, c.discarded[r]);
    }
  }
  w.family("braid_lldp_cabling_findings", "cabling findings standing now, per kind",
           MetricType::kGauge);
  for (Bond* bond : bonds) {
    const BondLldp* agents = bond->lldp();
    if (agents == nullptr) continue;
    for (const lldp::FindingKind kind : kFindingKinds) {
      std::uint64_t standing = 0;
      for (const lldp::Finding& finding : agents->findings())
        standing += finding.kind == kind ? 1 : 0;
      w.sample({{"bond", bond->name()}, {"kind", lldp::to_string(kind)}}, standing);
    }
  }
  w.family("braid_lldp_cabling_findings_raised_total", "cabling findings that appeared, per kind",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const BondLldp* agents = bond->lldp();
    if (agents == nullptr) continue;
    for (const lldp::FindingKind kind : kFindingKinds)
      w.sample({{"bond", bond->name()}, {"kind", lldp::to_string(kind)}},
               agents->finding_counters(kind).raised);
  }
}

}  // namespace

void register_lldp_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds) {
  control.commands().add(
      "show lldp [<bond>]",
      "per member: the LLDP neighbour (chassis, port, system name, TTL left), frames, rejects; "
      "the cabling findings",
      [bonds](const Args& args, Output& out) {
        for (Bond* bond : chosen_bonds(bonds, args))
          show_lldp(*bond, out);
      });
  control.telemetry().add_command("/braid/lldp",
                                  "LLDP neighbours per member, counters, cabling findings",
                                  control.commands(), "show lldp");
  control.metrics().add_collector([bonds](control::MetricWriter& w) { lldp_metrics(w, bonds); });
}

}  // namespace braid::bond
