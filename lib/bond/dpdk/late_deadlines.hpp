// A bond's protocol deadlines as the protocol loop served them (DeadlineLag: link polls, LACP
// periodic transmissions and expiries, BFD transmissions and Detection Times), and the warning a
// deadline served too late gives: an LACP one later than the slack, a BFD one later than the
// session's own interval (set_warning_threshold), at most one every 10 s, with how many were
// left unsaid since the last one.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/deadline_lag.hpp"

namespace braid::bond {

class LateDeadlines {
 public:
  // `lag` may be null (a bond outside an engine's protocol loop): nothing is recorded.
  LateDeadlines(std::string bond_name, DeadlineLag* lag)
      : bond_name_(std::move(bond_name)), lag_(lag) {}

  // A deadline of `kind` due at `deadline_ns` served at `now_ns` (0 and lacp::kNever: none).
  void note(DeadlineKind kind, std::uint64_t deadline_ns, std::uint64_t now_ns);
  // Deadlines of `kind` warn when served later than `threshold_ns` (instead of the slack).
  void set_warning_threshold(DeadlineKind kind, std::uint64_t threshold_ns) {
    threshold_ns_[static_cast<std::size_t>(kind)] = threshold_ns;
  }
  DeadlineLag* lag() const { return lag_; }

 private:
  static constexpr std::uint64_t kWarningIntervalNs = 10'000'000'000;

  std::string bond_name_;
  DeadlineLag* lag_;
  std::array<std::uint64_t, kDeadlineKinds> threshold_ns_{};  // 0: the slack
  std::uint64_t last_warning_ns_ = 0;
  std::uint64_t warnings_suppressed_ = 0;
};

}  // namespace braid::bond
