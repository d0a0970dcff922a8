#include "bond/dpdk/bfd_commands.hpp"

#include <cstdio>
#include <string>

#include "bond/dpdk/bond.hpp"
#include "bond/dpdk/bond_commands.hpp"
#include "common/clock.hpp"

namespace braid::bond {
namespace {

using control::Args;
using control::Output;

constexpr bfd::State kStates[] = {bfd::State::kAdminDown, bfd::State::kDown, bfd::State::kInit,
                                  bfd::State::kUp};

control::Value ms_value(std::uint64_t ns) {
  return ns == 0 ? control::Value::missing() : control::Value(static_cast<double>(ns) / 1e6);
}

// "-0.012s": how long ago; "" for never.
std::string ago_text(std::uint64_t then_ns, std::uint64_t now_ns) {
  if (then_ns == 0) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%+.3fs",
                (static_cast<double>(then_ns) - static_cast<double>(now_ns)) / 1e9);
  return text;
}

std::vector<BfdMemberView> views_of(const Bond& bond) {
  std::vector<BfdMemberView> views;
  if (const BondBfd* bfd = bond.bfd()) {
    for (std::size_t m = 0; m < bfd->member_count(); ++m)
      views.push_back(bfd->view(m));
  }
  return views;
}

void show_bfd(const Bond& bond, Output& out) {
  const std::uint64_t now = monotonic_ns();
  Output& section = out.section(bond.name());
  const config::BfdConfig& config = bond.config().bfd;
  section.value("mode", config::to_string(config.mode));
  if (bond.bfd() == nullptr) return;
  section.value("desired_min_tx_ms", config.desired_min_tx_ms);
  section.value("required_min_rx_ms", config.required_min_rx_ms);
  section.value("detect_mult", unsigned{config.detect_mult});
  control::Table& sessions = section.table(
      "sessions", {"member", "state", "remote_state", "diag", "local_discr", "remote_discr",
                   "local_ip", "remote_ip", "tx_interval_ms", "detect_time_ms", "last_rx",
                   "last_change", "packets_in", "packets_out", "rejected", "health_input"});
  const std::vector<BfdMemberView> views = views_of(bond);
  for (std::size_t m = 0; m < views.size(); ++m) {
    const BfdMemberView& v = views[m];
    sessions.row({v.member, bfd::to_string(v.state), bfd::to_string(v.remote_state),
                  bfd::to_string(v.diag), v.local_discriminator, v.remote_discriminator,
                  config::ip_text(config.members[m].local_ip),
                  config::ip_text(config.members[m].remote_ip), ms_value(v.tx_interval_ns),
                  ms_value(v.detection_time_ns), ago_text(v.last_rx_ns, now),
                  ago_text(v.last_change_ns, now), v.counters.packets_in, v.counters.packets_out,
                  v.counters.rejected_total, health::to_string(v.status)});
  }
  control::Table& rejects = section.table("rejected", {"member", "reason", "packets"});
  for (const BfdMemberView& v : views) {
    for (std::size_t r = 1; r < bfd::kRejectReasonCount; ++r) {
      if (v.counters.rejected[r] == 0) continue;
      rejects.row(
          {v.member, bfd::to_string(static_cast<bfd::RejectReason>(r)), v.counters.rejected[r]});
    }
  }
}

void bfd_metrics(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  using control::MetricType;
  struct Row {
    control::Labels labels;
    BfdMemberView view;
  };
  std::vector<Row> rows;
  for (Bond* bond : bonds) {
    for (BfdMemberView& view : views_of(*bond))
      rows.push_back({{{"bond", bond->name()}, {"member", view.member}}, std::move(view)});
  }
  if (rows.empty()) return;
  w.family("braid_bfd_session_state",
           "1 for the member's BFD session state (admin_down, down, init, up), 0 for the others",
           MetricType::kGauge);
  for (const Row& row : rows) {
    for (const bfd::State state : kStates) {
      control::Labels labels = row.labels;
      labels.emplace_back("state", bfd::to_string(state));
      w.sample(labels, std::uint64_t{row.view.state == state});
    }
  }
  w.family("braid_bfd_detection_time_seconds",
           "the session's Detection Time (RFC 5880 6.8.4); 0 while nothing is heard",
           MetricType::kGauge);
  for (const Row& row : rows)
    w.sample(row.labels, static_cast<double>(row.view.detection_time_ns) / 1e9);
  w.family("braid_bfd_tx_interval_seconds",
           "the negotiated transmit interval before jitter (RFC 5880 6.8.7)", MetricType::kGauge);
  for (const Row& row : rows)
    w.sample(row.labels, static_cast<double>(row.view.tx_interval_ns) / 1e9);
  w.family("braid_bfd_packets_in_total", "BFD Control packets the session took",
           MetricType::kCounter);
  for (const Row& row : rows)
    w.sample(row.labels, row.view.counters.packets_in);
  w.family("braid_bfd_packets_out_total", "BFD Control packets the session sent",
           MetricType::kCounter);
  for (const Row& row : rows)
    w.sample(row.labels, row.view.counters.packets_out);
  w.family("braid_bfd_state_changes_total", "state changes of the session", MetricType::kCounter);
  for (const Row& row : rows)
    w.sample(row.labels, row.view.counters.state_changes);
  w.family("braid_bfd_detection_expirations_total",
           "Detection Times that ran out without a packet (the far end went silent)",
           MetricType::kCounter);
  for (const Row& row : rows)
    w.sample(row.labels, row.view.counters.detection_expirations);
  w.family("braid_bfd_rejected_total", "BFD frames the member discarded, by reason",
           MetricType::kCounter);
  for (const Row& row : rows) {
    for (std::size_t r = 1; r < bfd::kRejectReasonCount; ++r) {
      control::Labels labels = row.labels;
      labels.emplace_back("reason", bfd::to_string(static_cast<bfd::RejectReason>(r)));
      w.sample(labels, row.view.counters.rejected[r]);
    }
  }
}

}  // namespace

void register_bfd_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds) {
  control.commands().add(
      "show bfd [<bond>]",
      "per member: BFD session state, diag, discriminators, timers, last packet, counters",
      [bonds](const Args& args, Output& out) {
        for (Bond* bond : chosen_bonds(bonds, args))
          show_bfd(*bond, out);
      });
  control.commands().add(
      "set bfd <member> admin-down|admin-up",
      "stop a member's BFD session (AdminDown: BFD no longer judges the member) or restart it",
      [bonds](const Args& args, Output& out) {
        for (Bond* bond : bonds) {
          const std::vector<MemberStatus> members = bond->members();
          for (std::size_t m = 0; m < members.size(); ++m) {
            if (members[m].name != args.get("member")) continue;
            if (bond->bfd() == nullptr) {
              out.error("bond " + bond->name() + " runs no BFD (bonds[].bfd.mode is off)");
              return;
            }
            const bool down = args.used("admin-down");
            bond->bfd()->set_admin_down(m, down, monotonic_ns());
            out.line("member " + members[m].name + " BFD " + (down ? "admin_down" : "down"));
            return;
          }
        }
        out.error("no member " + args.get("member"));
      });
  control.telemetry().add_command("/braid/bfd", "BFD sessions per member: state, timers, counters",
                                  control.commands(), "show bfd");
  control.metrics().add_collector([bonds](control::MetricWriter& w) { bfd_metrics(w, bonds); });
}

}  // namespace braid::bond
