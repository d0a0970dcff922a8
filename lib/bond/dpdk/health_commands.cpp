#include "bond/dpdk/health_commands.hpp"

#include <cstdio>
#include <string>

#include "bond/dpdk/bond.hpp"
#include "bond/dpdk/bond_commands.hpp"
#include "common/clock.hpp"

namespace braid::bond {
namespace {

using control::Args;
using control::Output;
using health::HealthView;
using health::State;

constexpr State kStates[] = {State::kHealthy, State::kDegraded, State::kDown, State::kSuppressed};

// "-12.345s" for a time past, "+3.210s" for one to come, "" for none.
std::string relative_text(std::uint64_t then_ns, std::uint64_t now_ns) {
  if (then_ns == 0) return "";
  char text[32];
  const double seconds = (static_cast<double>(then_ns) - static_cast<double>(now_ns)) / 1e9;
  std::snprintf(text, sizeof text, "%+.3fs", seconds);
  return text;
}

std::string rate_text(double ppm) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", ppm);
  return text;
}

// The numbers behind the state: "crc 2500.0 ppm > 100", "penalty 2207 (suppress above 2000)",
// "BFD control_detection_time_expired, last packet 0.150s before".
std::string evidence_text(const Bond& bond, std::size_t member, const HealthView& view,
                          const health::HealthSettings& settings) {
  const health::Evidence& e = view.evidence;
  switch (view.reason) {
    case health::Reason::kBfdDown: {
      if (bond.bfd() == nullptr) return "";
      const BfdMemberView bfd = bond.bfd()->view(member);
      std::string text =
          std::string("BFD ") + bfd::to_string(bfd.state) + ", diag " + bfd::to_string(bfd.diag);
      if (bfd.last_rx_ns != 0 && bfd.last_change_ns > bfd.last_rx_ns) {
        char gap[48];
        std::snprintf(gap, sizeof gap, ", last packet %.3fs before",
                      static_cast<double>(bfd.last_change_ns - bfd.last_rx_ns) / 1e9);
        text += gap;
      }
      return text;
    }
    case health::Reason::kErrorRate:
      return std::string(health::to_string(e.signal)) + " " + rate_text(e.rate_ppm) + " ppm > " +
             std::to_string(e.threshold_ppm);
    case health::Reason::kFlapSuppressed:
      return "penalty " + std::to_string(static_cast<std::uint64_t>(e.penalty)) +
             " (suppress above " + std::to_string(settings.dampening.suppress_threshold) +
             ", reuse at " + std::to_string(settings.dampening.reuse_threshold) + ")";
    default:
      return "";
  }
}

void show_health(const Bond& bond, Output& out) {
  const std::uint64_t now = monotonic_ns();
  Output& section = out.section(bond.name());
  const health::HealthSettings& settings = bond.health_settings();
  const std::vector<MemberStatus> members = bond.members();
  control::Table& table =
      section.table("members", {"member", "state", "reason", "evidence", "since", "until",
                                "weight_permille", "penalty", "flaps"});
  std::vector<HealthView> views;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const HealthView& view = views.emplace_back(bond.health_view(m, now));
    table.row({members[m].name, health::to_string(view.state),
               health::reason_string(view.reason, view.evidence.signal),
               evidence_text(bond, m, view, settings), relative_text(view.evidence.since_ns, now),
               relative_text(view.evidence.until_ns, now), view.weight_permille,
               static_cast<std::uint64_t>(view.penalty), view.flaps});
  }
  control::Table& signals =
      section.table("signals", {"member", "signal", "judged", "verdict", "rate_ppm", "errors",
                                "frames", "degrade_ppm", "recover_ppm", "since"});
  for (std::size_t m = 0; m < members.size(); ++m) {
    for (const health::SignalView& signal : views[m].signals) {
      const health::SignalSettings& s = settings.signals[static_cast<std::size_t>(signal.signal)];
      const bool available = signal.available;
      signals.row(
          {members[m].name, health::to_string(signal.signal), signal.judged,
           available ? (signal.degraded ? "degraded" : "clean") : "unavailable",
           available ? control::Value(rate_text(signal.rate_ppm)) : control::Value("unavailable"),
           available ? control::Value(signal.errors) : control::Value::missing(),
           available ? control::Value(signal.frames) : control::Value::missing(), s.degrade_ppm,
           s.recover_ppm, relative_text(signal.since_ns, now)});
    }
  }
  section.value("window_s", settings.window_ns / health::kNsPerSecond);
  section.value("degraded_weight_permille", settings.degraded_weight_permille);
  section.value("dampening", settings.dampening.penalty_per_flap == 0 ? "off" : "on");
  // What the verdicts do, both ways (member_service.hpp; show bond's service table has more).
  control::Table& service =
      section.table("service", {"member", "transmit_permille", "transmit", "partner", "since"});
  for (const MemberStatus& member : members) {
    const ServiceVerdict& v = member.service;
    service.row({member.name, v.tx_weight_permille, to_string(v.tx),
                 !member.partner_told ? std::string("not_told (static)")
                 : v.withdrawn        ? "withdrawn (" + to_string(v.partner) + ")"
                                      : std::string("in_sync"),
                 member.partner_told ? relative_text(member.partner_since_ns, now) : "-"});
  }
  if (bond.lacp() != nullptr) {
    const WithdrawPolicy& policy = bond.config().lacp.withdraw;
    section.value("withdraw_degraded", to_string(policy.degraded));
    section.value("withdraw_cabling", policy.cabling ? "on" : "off");
    section.value("withdraw_patience_ms", policy.patience_ns / 1'000'000);
  }
}

void health_metrics(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  using control::MetricType;
  const std::uint64_t now = monotonic_ns();
  struct Row {
    control::Labels labels;
    HealthView view;
  };
  std::vector<Row> rows;
  for (Bond* bond : bonds) {
    const std::vector<MemberStatus> members = bond->members();
    for (std::size_t m = 0; m < members.size(); ++m)
      rows.push_back(
          {{{"bond", bond->name()}, {"member", members[m].name}}, bond->health_view(m, now)});
  }
  w.family(
      "braid_member_health_state",
      "1 for the member's health state (healthy, degraded, down, suppressed), 0 for the others",
      MetricType::kGauge);
  for (const Row& row : rows) {
    for (const State state : kStates) {
      control::Labels labels = row.labels;
      labels.emplace_back("state", health::to_string(state));
      w.sample(labels, std::uint64_t{row.view.state == state});
    }
  }
  w.family("braid_member_health_weight_permille",
           "the share of its weight the member's health leaves it (1000 healthy, 0 down)",
           MetricType::kGauge);
  for (const Row& row : rows)
    w.sample(row.labels, std::uint64_t{row.view.weight_permille});
  w.family("braid_member_flap_penalty", "the member's flap-dampening penalty now (RFC 2439)",
           MetricType::kGauge);
  for (const Row& row : rows)
    w.sample(row.labels, row.view.penalty);
  w.family("braid_member_flaps_total", "down transitions of the member's link (after down_delay)",
           MetricType::kCounter);
  for (const Row& row : rows)
    w.sample(row.labels, row.view.flaps);
  w.family("braid_member_error_rate_ppm",
           "errors per million frames over the window, per signal the member's counters have",
           MetricType::kGauge);
  for (const Row& row : rows) {
    for (const health::SignalView& signal : row.view.signals) {
      if (!signal.available) continue;
      control::Labels labels = row.labels;
      labels.emplace_back("signal", health::to_string(signal.signal));
      w.sample(labels, signal.rate_ppm);
    }
  }
}

}  // namespace

void register_health_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds) {
  control.commands().add(
      "show health [<bond>]",
      "per member: health state, reason, evidence, weight, flap penalty, error-rate signals",
      [bonds](const Args& args, Output& out) {
        for (Bond* bond : chosen_bonds(bonds, args))
          show_health(*bond, out);
      });
  control.telemetry().add_command("/braid/health", "member health: states, reasons, signals",
                                  control.commands(), "show health");
  control.metrics().add_collector([bonds](control::MetricWriter& w) { health_metrics(w, bonds); });
}

}  // namespace braid::bond
