#include "bond/dpdk/late_deadlines.hpp"

#include "lacp/timer.hpp"
#include "log/log_types.hpp"

namespace braid::bond {

void LateDeadlines::note(DeadlineKind kind, std::uint64_t deadline_ns, std::uint64_t now_ns) {
  if (lag_ == nullptr || deadline_ns == 0 || deadline_ns == lacp::kNever) return;
  const std::uint64_t late = lag_->record(kind, deadline_ns, now_ns);
  if (kind == DeadlineKind::kLinkPoll || kind == DeadlineKind::kSchedulerPeriod) return;
  const std::uint64_t threshold = threshold_ns_[static_cast<std::size_t>(kind)];
  if (threshold != 0 ? late <= threshold : !lag_->over_slack(late)) return;
  // An LACP or BFD deadline missed by more than it can afford: the protocol loop did not get the
  // CPU.
  if (last_warning_ns_ != 0 && now_ns - last_warning_ns_ < kWarningIntervalNs) {
    ++warnings_suppressed_;
    return;
  }
  BRAID_LOG_TO(
      kBond, WARNING,
      "bond %s: %s deadline served %.1f ms late (allowed %.0f ms; %llu more since the last "
      "warning): the protocol loop lacks CPU; give the main lcore a CPU of its own "
      "(doc/deploy.md)\n",
      bond_name_.c_str(), std::string(kDeadlineKindNames[static_cast<std::size_t>(kind)]).c_str(),
      static_cast<double>(late) / 1e6,
      static_cast<double>(threshold != 0 ? threshold : lag_->slack_ns()) / 1e6,
      static_cast<unsigned long long>(warnings_suppressed_));
  last_warning_ns_ = now_ns;
  warnings_suppressed_ = 0;
}

}  // namespace braid::bond
