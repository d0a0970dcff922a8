#include "bond/dpdk/bond_commands.hpp"

#include <rte_ethdev.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "bond/dpdk/bfd_commands.hpp"
#include "bond/dpdk/bond.hpp"
#include "bond/dpdk/bond_metrics.hpp"
#include "bond/dpdk/bond_readiness.hpp"
#include "bond/dpdk/class_commands.hpp"
#include "bond/dpdk/health_commands.hpp"
#include "bond/dpdk/lldp_commands.hpp"
#include "common/clock.hpp"
#include "control/control_plane.hpp"
#include "lacp/snapshot.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::bond {
namespace {

using control::Args;
using control::Output;

constexpr std::size_t kRecentEvents = 10;
constexpr std::size_t kRecentTransitions = 20;

std::string mode_name(config::BondMode mode) {
  return std::string(config::name_of(mode, config::kBondModeNames));
}

// Where a member's LACPDUs arrive: its own RX queue (steered) or the workers' ring.
std::string slow_path_text(const MemberStatus& member) {
  return member.slow_rx_queue ? "rxq " + std::to_string(*member.slow_rx_queue) : "ring";
}

// "healthy", "degraded (error_rate:crc)", "suppressed (flap_suppressed)" (show health: why).
std::string health_text(const MemberStatus& member) {
  const std::string state = health::to_string(member.health);
  return member.health == health::State::kHealthy ? state
                                                  : state + " (" + member.health_reason + ")";
}

std::string mac_text(const rte_ether_addr& mac) {
  char text[RTE_ETHER_ADDR_FMT_SIZE];
  rte_ether_format_addr(text, sizeof text, &mac);
  return text;
}

std::string system_text(std::uint16_t priority, const lacp::MacAddress& mac) {
  return std::to_string(priority) + "," + lacp::mac_string(mac);
}

std::string age_text(std::uint64_t then_ns, std::uint64_t now_ns) {
  char text[32];
  std::snprintf(text, sizeof text, "-%.3fs", static_cast<double>(now_ns - then_ns) / 1e9);
  return text;
}

// "acknowledged 12.3 ms", "patience 300.0 ms", "-" (never withdrawn).
std::string release_text(const MemberStatus& member) {
  if (member.release == Release::kPending) return "pending";
  if (member.last_release == Release::kNone || !member.last_release_wait_ns) return "-";
  char ms[32];
  std::snprintf(ms, sizeof ms, " %.1f ms", static_cast<double>(*member.last_release_wait_ns) / 1e6);
  return std::string(to_string(member.last_release)) + ms;
}

// Each member's service both ways (member_service.hpp): braid's transmit on it, what its LACP
// partner is told, since when, and how the partner took the last withdrawal.
void show_service(const Bond& bond, std::uint64_t now, Output& section) {
  control::Table& service =
      section.table("service", {"member", "transmit_permille", "transmit", "transmit_since",
                                "partner", "partner_since", "collecting", "last_release"});
  for (const MemberStatus& member : bond.members()) {
    const ServiceVerdict& v = member.service;
    // A static bond has no way to tell its partner anything.
    const std::string partner = !member.partner_told ? "not_told (static)"
                                : v.withdrawn        ? "withdrawn (" + to_string(v.partner) + ")"
                                                     : "in_sync";
    service.row({member.name, v.tx_weight_permille, to_string(v.tx),
                 age_text(member.tx_since_ns, now), partner,
                 member.partner_told ? age_text(member.partner_since_ns, now) : "-", v.collecting,
                 release_text(member)});
  }
}

void show_bond(const Bond& bond, Output& out) {
  const std::uint64_t now = monotonic_ns();
  Output& section = out.section(bond.name());
  const config::BondConfig& config = bond.config();
  section.value("mode", mode_name(config.mode));
  section.value("mac", mac_text(bond.mac()));
  section.value("hash", config.hash);
  section.value("buckets", config.buckets);
  section.value("min_links", config.min_links);
  control::Table& members = section.table(
      "members", {"member", "link", "link_source", "speed_mbps", "admin", "collecting",
                  "distributing", "weight", "health", "buckets", "tx_packets", "slow_path"});
  for (const MemberStatus& member : bond.members()) {
    rte_eth_stats stats{};
    drivers::read_port_stats(member.port_id, stats);
    members.row({member.name, member.link_up ? "up" : "down", std::string(member.link_source),
                 member.speed_mbps, member.admin_up ? "up" : "down", member.collecting,
                 member.distributing, member.weight, health_text(member), member.buckets,
                 std::uint64_t{stats.opackets}, slow_path_text(member)});
  }
  show_service(bond, now, section);
  section.value("status", readiness_of(bond).status());
  const BondCounters& counters = bond.counters();
  section.value("tables_published", counters.tables_published);
  section.value("buckets_moved", counters.buckets_moved);
  section.value("link_changes", counters.link_changes);
  section.value("slow_steering",
                std::string(config::name_of(config.slow_steering, config::kSlowSteeringNames)));
  section.value("slow_rx_steered", counters.slow_rx_steered);
  section.value("slow_rx_diverted", counters.slow_rx_diverted);
  section.value("slow_frames_ignored", counters.slow_frames_ignored);
  section.value("slow_queue_misdirected", counters.slow_queue_misdirected);
  section.value("slow_policed", counters.slow_policed);
  section.value("slow_unsupported", counters.slow_unsupported);
  section.value("slow_ring_budget_hits", counters.slow_ring_budget_hits);
  section.value("control_tx", counters.control_tx);
  section.value("control_tx_failed", counters.control_tx_failed);
  section.value("control_no_mbuf", counters.control_no_mbuf);
  section.value("goodbye_tx", counters.goodbye_tx);
  control::Table& events = section.table("recent_events", {"age", "event"});
  const auto& log = bond.events();
  const std::size_t first = log.size() > kRecentEvents ? log.size() - kRecentEvents : 0;
  for (std::size_t e = first; e < log.size(); ++e) {
    events.row({age_text(log[e].time_ns, now), log[e].text});
  }
}

void show_lacp(const Bond& bond, bool detail, Output& out) {
  Output& section = out.section(bond.name());
  const lacp::LacpSystem* system = bond.lacp();
  if (system == nullptr) {
    section.line("mode " + mode_name(bond.config().mode) + ": LACP is not running");
    return;
  }
  const lacp::SystemSnapshot snapshot = system->snapshot();
  section.value("system", system_text(snapshot.system_priority, snapshot.system_mac));
  section.value("active_aggregator", snapshot.active_aggregator);
  section.value("rate", bond.config().lacp.fast ? "fast" : "slow");
  section.value("activity", bond.config().lacp.active ? "active" : "passive");
  const std::vector<MemberStatus> members = bond.members();
  control::Table& table =
      section.table("ports", {"member", "port", "actor_key", "actor_state", "partner_system",
                              "partner_key", "partner_port", "partner_state", "receive", "mux",
                              "selected", "fallback", "lacpdu_rx", "lacpdu_tx", "bad"});
  for (std::size_t p = 0; p < snapshot.ports.size(); ++p) {
    const lacp::PortSnapshot& port = snapshot.ports[p];
    table.row({p < members.size() ? members[p].name : "?", port.port_number, port.actor.key,
               lacp::state_string(port.actor.state),
               system_text(port.partner.system_priority, port.partner.system), port.partner.key,
               std::to_string(port.partner.port_priority) + "," +
                   std::to_string(port.partner.port_number),
               lacp::state_string(port.partner.state), port.receive_state, port.mux_state,
               port.selected, port.fallback, port.counters.lacpdu_rx, port.counters.lacpdu_tx,
               port.counters.bad_pdu_total});
  }
  section.value("fallback", bond.config().lacp.fallback ? "on" : "off");
  // After a restart: which members took up the saved LACP state (doc/lacp.md).
  std::string resumed;
  const std::uint64_t now_ns = monotonic_ns();
  for (std::size_t p = 0; p < snapshot.ports.size() && p < members.size(); ++p) {
    const std::string_view outcome = snapshot.ports[p].resume_outcome;
    if (outcome == "none") continue;
    resumed += (resumed.empty() ? "" : ", ") + members[p].name + " " + std::string(outcome);
    if (const auto at = snapshot.ports[p].resumed_ns; at && *at <= now_ns)
      resumed += " " + age_text(*at, now_ns) + " ago";
  }
  if (!resumed.empty()) section.value("restart", resumed);
  section.line(
      "state bits: A=activity T=short timeout G=aggregation S=sync C=collecting "
      "D=distributing F=defaulted E=expired");
  if (!detail) return;
  const std::uint64_t now = monotonic_ns();
  control::Table& ports = section.table(
      "machines", {"member", "periodic", "actor_churn", "partner_churn", "lacpdu_heard"});
  for (std::size_t p = 0; p < snapshot.ports.size(); ++p) {
    const lacp::PortSnapshot& port = snapshot.ports[p];
    ports.row({p < members.size() ? members[p].name : "?", port.periodic_state,
               port.actor_churn_state, port.partner_churn_state,
               port.lacpdu_heard_ns != 0 && port.lacpdu_heard_ns <= now
                   ? age_text(port.lacpdu_heard_ns, now)
                   : std::string("never")});
  }
  // Every frame the member's LACP received or sent is in one of these columns.
  std::vector<std::string> columns = {"member",
                                      "lacpdu_rx",
                                      "lacpdu_rx_ignored",
                                      "lacpdu_tx",
                                      "lacpdu_tx_deferred",
                                      "lacpdu_tx_failed",
                                      "goodbye_tx",
                                      "marker_rx",
                                      "marker_response_rx",
                                      "marker_response_tx",
                                      "marker_response_suppressed",
                                      "marker_response_tx_failed"};
  for (std::size_t e = 1; e < lacp::kDecodeErrorCount; ++e)
    columns.push_back(std::string("rejected_") +
                      lacp::to_string(static_cast<lacp::DecodeError>(e)));
  control::Table& counts = section.table("counters", columns);
  for (std::size_t p = 0; p < snapshot.ports.size(); ++p) {
    const lacp::PortCounters& c = snapshot.ports[p].counters;
    std::vector<control::Value> row = {p < members.size() ? members[p].name : "?",
                                       c.lacpdu_rx,
                                       c.lacpdu_rx_ignored,
                                       c.lacpdu_tx,
                                       c.lacpdu_tx_deferred,
                                       c.lacpdu_tx_failed,
                                       c.goodbye_tx,
                                       c.marker_rx,
                                       c.marker_response_rx,
                                       c.marker_response_tx,
                                       c.marker_response_suppressed,
                                       c.marker_response_tx_failed};
    for (std::size_t e = 1; e < lacp::kDecodeErrorCount; ++e)
      row.push_back(c.bad_pdu[e]);
    counts.row(row);
  }
  // Which member a port number is: the log knows LACP's port numbers, operators know names.
  auto member_of = [&](std::uint16_t port_number) -> std::string {
    if (port_number == 0) return "-";  // a system-wide event
    for (std::size_t p = 0; p < snapshot.ports.size() && p < members.size(); ++p) {
      if (snapshot.ports[p].port_number == port_number) return members[p].name;
    }
    return "port " + std::to_string(port_number);
  };
  const lacp::EventLog& log = system->event_log();
  section.value("periodic_ticks", log.periodic_ticks());  // PERIODIC_TX passes, not listed
  control::Table& events = section.table("transitions", {"age", "member", "machine", "from", "to"});
  const std::vector<lacp::Event> history = log.events();
  const std::size_t first =
      history.size() > kRecentTransitions ? history.size() - kRecentTransitions : 0;
  for (std::size_t e = first; e < history.size(); ++e) {
    const lacp::Event& event = history[e];
    events.row({event.time_ns <= now ? age_text(event.time_ns, now) : "",
                member_of(event.port_number), lacp::to_string(event.machine), event.from,
                event.to});
  }
}

void show_distribution(const Bond& bond, Output& out) {
  Output& section = out.section(bond.name());
  const BondTable* table = bond.table();
  section.value("generation", table != nullptr ? table->generation : 0);
  section.value("buckets", bond.config().buckets);
  section.value("moves", bond.counters().buckets_moved);
  control::Table& members = section.table("members", {"member", "buckets", "share"});
  const std::vector<MemberStatus> status = bond.members();
  // With traffic classes, over every class's table (show classes has them one by one).
  for (const MemberStatus& member : status)
    members.row(
        {member.name, member.buckets, share_text(member.buckets, bond.assignment().size())});
  if (table == nullptr) return;
  // The first 64 buckets as member indices: enough to see the interleaving at a glance
  // ('-' no member, 'h' held: being moved by the scheduler).
  std::string map;
  for (std::size_t b = 0; b < std::min<std::size_t>(64, table->buckets.size()); ++b) {
    const MemberIndex member = table->buckets[b];
    map += member == kNoMember     ? '-'
           : member == kHeldBucket ? 'h'
                                   : static_cast<char>('0' + member % 10);
  }
  section.value("first_64_buckets", map);
}

// Finds a member by name across the bonds: (bond, index) or (nullptr, 0).
std::pair<Bond*, std::size_t> find_member(const std::vector<Bond*>& bonds,
                                          const std::string& name) {
  for (Bond* bond : bonds) {
    const std::vector<MemberStatus> members = bond->members();
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (members[m].name == name) return {bond, m};
    }
  }
  return {nullptr, 0};
}

}  // namespace

std::vector<Bond*> chosen_bonds(const std::vector<Bond*>& bonds, const Args& args) {
  std::vector<Bond*> result;
  for (Bond* bond : bonds) {
    if (!args.has("bond") || bond->name() == args.get("bond")) result.push_back(bond);
  }
  return result;
}

void register_bond_commands(control::ControlPlane& control, std::vector<Bond*> bonds) {
  register_readiness_endpoint(control, bonds);
  if (bonds.empty()) return;
  control::CommandRegistry& commands = control.commands();
  // Names never change: the console completes them on the management thread, so they are
  // captured here rather than read from the bonds.
  std::vector<std::string> bond_names;
  std::vector<std::string> member_names;
  for (Bond* bond : bonds) {
    bond_names.push_back(bond->name());
    for (const MemberStatus& m : bond->members())
      member_names.push_back(m.name);
  }
  commands.define_param(
      "bond",
      {.help = "a configured bond", .values = [bond_names] { return bond_names; }, .strict = true});
  commands.define_param("member", {.help = "a bond member port",
                                   .values = [member_names] { return member_names; },
                                   .strict = true});
  commands.add("show bond [<bond>]",
               "mode, MAC, members (link, admin, collecting, distributing, buckets), events",
               [bonds](const Args& args, Output& out) {
                 for (Bond* bond : chosen_bonds(bonds, args))
                   show_bond(*bond, out);
               });
  commands.add("show lacp [detail] [<bond>]",
               "actor and partner per member, state bits, machine states, PDU counters",
               [bonds](const Args& args, Output& out) {
                 for (Bond* bond : chosen_bonds(bonds, args))
                   show_lacp(*bond, args.used("detail"), out);
               });
  commands.add("show distribution [<bond>]", "buckets per member, moves, the bucket map",
               [bonds](const Args& args, Output& out) {
                 for (Bond* bond : chosen_bonds(bonds, args))
                   show_distribution(*bond, out);
               });
  commands.add("set member <member> up|down",
               "admin state of a bond member: down drains it (its traffic moves at once, the "
               "LACP partner is told to stop sending)",
               [bonds](const Args& args, Output& out) {
                 const auto [bond, index] = find_member(bonds, args.get("member"));
                 if (bond == nullptr) {
                   out.error("no member " + args.get("member"));
                   return;
                 }
                 const bool up = args.used("up");
                 bond->set_member_admin(index, up, monotonic_ns());
                 const bool draining = !up && bond->service(index).release() == Release::kPending;
                 out.line("member " + args.get("member") + " admin " + (up ? "up" : "down") +
                          (draining ? ": draining, the partner is told to stop sending (show bond: "
                                      "service)"
                                    : ""));
               });
  commands.add("set bond <bond> lacp rate fast|slow",
               "ask the partner for LACPDUs every second (fast) or 30 seconds (slow)",
               [bonds](const Args& args, Output& out) {
                 for (Bond* bond : chosen_bonds(bonds, args)) {
                   const bool fast = args.used("fast");
                   if (!bond->set_lacp_rate(fast, monotonic_ns())) {
                     out.error("bond " + bond->name() + " is not in mode lacp");
                     return;
                   }
                   out.line("bond " + bond->name() + ": LACP rate " + (fast ? "fast" : "slow"));
                 }
               });
  control.telemetry().add_command("/braid/bond", "bonds: members, buckets, events",
                                  control.commands(), "show bond");
  control.telemetry().add_command("/braid/lacp", "LACP actor/partner per member",
                                  control.commands(), "show lacp");
  register_bond_metrics(control.metrics(), bonds);
  register_health_commands(control, bonds);
  register_bfd_commands(control, bonds);
  register_lldp_commands(control, bonds);
  register_class_commands(control, bonds);
}

std::string share_text(std::uint32_t count, std::size_t total) {
  char share[16];
  std::snprintf(share, sizeof share, "%.1f%%",
                100.0 * count / static_cast<double>(std::max<std::size_t>(total, 1)));
  return share;
}

}  // namespace braid::bond
