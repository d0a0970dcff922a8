// The bond's members' service state (member_service.hpp, doc/health.md "Both ends"): what the
// bond knows of each member gathered into the pure model's inputs, its verdicts applied (LACP
// told which members are withdrawn, a drained member's port disabled), the operator's admin
// state, and braid's planned stop, whose first step waits for every partner to let go.
#include <algorithm>
#include <cstdio>

#include "bond/dpdk/bond.hpp"

namespace braid::bond {

bool Bond::usable(std::size_t m) const {
  return services_[m].verdict().tx_weight_permille != 0 && tables_.weighed(m);
}

bool Bond::lacp_enabled(std::size_t m) const {
  return links_.up(m) && !members_[m].drained;
}

std::vector<bool> Bond::cabling_findings() const {
  std::vector<bool> named(members_.size(), false);
  if (!lldp_) return named;
  for (const lldp::Finding& finding : lldp_->findings()) {
    // Only findings about the wiring itself: a neighbour port "not in an aggregation" is what a
    // withdrawal makes it say (it would hold the member out for good), and a silent member may
    // face a switch that runs no LLDP.
    if (finding.kind != lldp::FindingKind::kSeveralNeighbours &&
        finding.kind != lldp::FindingKind::kDifferentChassis)
      continue;
    for (std::size_t m = 0; m < members_.size(); ++m) {
      const std::string& name = members_[m].port->name();
      if (std::find(finding.members.begin(), finding.members.end(), name) != finding.members.end())
        named[m] = true;
    }
  }
  return named;
}

ServiceInputs Bond::service_inputs(std::size_t m, const std::vector<bool>& cabling) const {
  ServiceInputs in;
  in.admin_up = members_[m].admin_up;
  in.stopping = stopping_;
  in.carrier = links_.up(m);
  in.lacp = lacp_ != nullptr;
  if (lacp_) {
    in.lacp_distributing = lacp_->distributing(m);
    in.lacp_collecting = lacp_->collecting(m);
    in.partner_released_ns = lacp_->system().partner_released_ns(m);
    const lacp::Port& port = lacp_->system().port(m);
    in.partner_in_sync =
        port.partnered() && lacp::has_bit(port.partner.state, lacp::state_bit::kSynchronization);
  }
  const health::MemberHealth& health = health_.member(m);
  in.health = health.state();
  in.health_reason = health.reason();
  in.health_signal = health.evidence().signal;
  in.health_weight_permille = health.weight_permille();
  in.cabling_finding = cabling[m];
  return in;
}

bool Bond::update_services(std::uint64_t now_ns) {
  const std::vector<bool> cabling = cabling_findings();
  bool changed = false;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    MemberService& service = services_[m];
    const ServiceVerdict before = service.verdict();
    for (const ServiceEvent& event : service.update(service_inputs(m, cabling), now_ns))
      log(now_ns, "member " + members_[m].port->name() + " " + to_string(event));
    const ServiceVerdict& after = service.verdict();
    changed |= after.tx_weight_permille != before.tx_weight_permille ||
               after.collecting != before.collecting || after.withdrawn != before.withdrawn;
    if (!lacp_) {
      members_[m].drained = !members_[m].admin_up;
      continue;
    }
    // The withdrawal LACPDU goes out inside this call (NTT, 802.1AX 6.4.15).
    if (after.withdrawn != lacp_->system().withdrawn(m))
      lacp_->system().set_withdrawn(m, after.withdrawn, now_ns);
    if (!members_[m].admin_up && service.settled() && !members_[m].drained) {
      // The drain is over: the partner stopped sending (or will not say so): the port leaves.
      members_[m].drained = true;
      lacp_->say_goodbye(m, now_ns);  // only where the partner may still think us in sync
      lacp_->set_enabled(m, false, now_ns);
      log(now_ns, "member " + members_[m].port->name() + " drained (" +
                      to_string(service.last_release()) + "); its LACP port is disabled");
      changed = true;
    }
  }
  return changed;
}

void Bond::set_member_admin(std::size_t m, bool up, std::uint64_t now_ns) {
  Member& member = members_.at(m);
  if (member.admin_up == up) return;
  member.admin_up = up;
  const bool drain = !up && lacp_ && links_.up(m);
  log(now_ns, "member " + member.port->name() + " admin " +
                  (up      ? "up"
                   : drain ? "down: draining (the partner is told to stop sending; collecting "
                             "until it has)"
                           : "down"));
  if (up) {
    member.drained = false;
    if (lacp_) {
      lacp_->cancel_goodbye(m);
      lacp_->set_enabled(m, lacp_enabled(m), now_ns);
    }
  }
  rebuild(now_ns, up ? "admin up" : "admin down");
}

void Bond::begin_leave(std::uint64_t now_ns) {
  if (stopping_) return;
  stopping_ = true;
  if (lacp_) log(now_ns, "stopping: every member withdrawn from its partner first");
  rebuild(now_ns, "stopping");
}

bool Bond::left() const {
  return std::all_of(services_.begin(), services_.end(),
                     [](const MemberService& service) { return service.settled(); });
}

std::string Bond::leave_report() const {
  std::string report;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const MemberService& service = services_[m];
    std::string line = members_[m].port->name() + " " + to_string(service.last_release());
    if (service.last_release() == Release::kAcknowledged && service.last_release_wait_ns()) {
      char ms[32];
      std::snprintf(ms, sizeof ms, " in %.1f ms",
                    static_cast<double>(*service.last_release_wait_ns()) / 1e6);
      line += ms;
    }
    report += (report.empty() ? "" : ", ") + line;
  }
  return report;
}

}  // namespace braid::bond
