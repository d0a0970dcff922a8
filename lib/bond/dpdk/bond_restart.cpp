// LACP-preserving restart on the bond's side (lacp/resume.hpp, doc/lacp.md "Restart without a
// flap"): members matched by name between the old process's file and this config.
#include "bond/dpdk/bond.hpp"
#include "log/log_types.hpp"

namespace braid::bond {

void Bond::arm_resume(lacp::SavedBond saved) {
  resume_ = std::move(saved);
}

void Bond::apply_resume(std::uint64_t now_ns) {
  if (!resume_) return;
  resume_logged_.assign(members_.size(), lacp::ResumeOutcome::kNone);
  for (const lacp::SavedMember& saved : resume_->members) {
    std::size_t m = 0;
    while (m < members_.size() && members_[m].port->name() != saved.name)
      ++m;
    if (m == members_.size()) {
      log(now_ns, "restart: saved member " + saved.name + " is not a member now");
      continue;
    }
    lacp_->system().arm_resume(m, saved.point, now_ns);
  }
  resume_.reset();
}

void Bond::log_resume_outcomes(std::uint64_t now_ns) {
  bool waiting = false;
  for (std::size_t m = 0; m < resume_logged_.size(); ++m) {
    const lacp::LacpSystem& system = lacp_->system();
    const lacp::ResumeOutcome outcome = system.resume_outcome(m);
    waiting = waiting || outcome == lacp::ResumeOutcome::kArmed;
    if (outcome == resume_logged_[m] || outcome == lacp::ResumeOutcome::kArmed) continue;
    resume_logged_[m] = outcome;
    const std::string& member = members_[m].port->name();
    switch (outcome) {
      case lacp::ResumeOutcome::kResumed:
        log(now_ns, "member " + member +
                        " LACP resumed from the previous process: in service "
                        "with the same partner, no selection");
        break;
      case lacp::ResumeOutcome::kRefused:
        log(now_ns, "member " + member + " LACP not resumed (" + system.resume_refusal(m) +
                        "): it starts cold");
        break;
      case lacp::ResumeOutcome::kExpired:
        log(now_ns, "member " + member +
                        " LACP not resumed: its link did not come up in time; it starts cold");
        break;
      case lacp::ResumeOutcome::kNone:
      case lacp::ResumeOutcome::kArmed:
        break;
    }
  }
  if (!waiting) resume_logged_.clear();
}

lacp::SavedBond Bond::restart_points(std::uint64_t now_ns) {
  lacp::SavedBond saved{config_.name, {}};
  if (!lacp_) return saved;
  lacp::LacpSystem& system = lacp_->system();
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const std::optional<lacp::ResumePoint> point = system.resume_point(m);
    if (!point) continue;
    system.send_now(m, now_ns);
    saved.members.push_back({members_[m].port->name(), *point});
  }
  return saved;
}

}  // namespace braid::bond
