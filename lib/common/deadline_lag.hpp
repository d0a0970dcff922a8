// How late the protocol loop serves its deadlines: per kind of deadline, the worst lateness
// since start and over the last minute, how many were served and how many later than the
// slack; and the loop's own period (the gap between two iterations). Written by the protocol
// loop only; read by commands that run on it (show control, /metrics). Pure: time is injected.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "common/worst_window.hpp"

namespace braid {

enum class DeadlineKind : std::uint8_t {
  kLacpPeriodic,     // a member's periodic LACPDU (802.1AX 6.4.13)
  kLacpExpiry,       // a member's current_while timer (6.4.12): the partner's LACPDUs stopped
  kLinkPoll,         // a bond's link poll (link_poll_us)
  kSchedulerPeriod,  // a bond scheduler's feedback period (period_ms)
  kBfdTransmit,      // a member's periodic BFD Control packet (RFC 5880 6.8.7)
  kBfdDetection,     // a member's BFD Detection Time running out (RFC 5880 6.8.4)
  kCount,
};
inline constexpr std::size_t kDeadlineKinds = static_cast<std::size_t>(DeadlineKind::kCount);
inline constexpr std::array<std::string_view, kDeadlineKinds> kDeadlineKindNames = {
    "lacp_periodic",    "lacp_expiry",  "link_poll",
    "scheduler_period", "bfd_transmit", "bfd_detection"};

class DeadlineLag {
 public:
  static constexpr std::size_t kWindowSeconds = WorstWindow::kSeconds;

  struct Stats {
    std::uint64_t served = 0;
    std::uint64_t late = 0;  // later than the slack
    std::uint64_t worst_ns = 0;
    std::uint64_t worst_last_minute_ns = 0;
    std::uint64_t last_ns = 0;
  };

  explicit DeadlineLag(std::uint64_t slack_ns = 50'000'000) : slack_ns_(slack_ns) {}

  // A deadline of `kind` due at `deadline_ns`, served at `now_ns`. Returns its lateness.
  std::uint64_t record(DeadlineKind kind, std::uint64_t deadline_ns, std::uint64_t now_ns) {
    const std::uint64_t lateness = now_ns > deadline_ns ? now_ns - deadline_ns : 0;
    Series& series = series_[static_cast<std::size_t>(kind)];
    ++series.stats.served;
    if (lateness > slack_ns_) ++series.stats.late;
    series.stats.last_ns = lateness;
    series.stats.worst_ns = std::max(series.stats.worst_ns, lateness);
    series.window.add(now_ns, lateness);
    return lateness;
  }
  // One protocol-loop iteration began at `now_ns`.
  void record_iteration(std::uint64_t now_ns) {
    if (last_iteration_ns_ != 0 && now_ns > last_iteration_ns_) {
      const std::uint64_t gap = now_ns - last_iteration_ns_;
      loop_.stats.last_ns = gap;
      loop_.stats.worst_ns = std::max(loop_.stats.worst_ns, gap);
      loop_.window.add(now_ns, gap);
    }
    ++loop_.stats.served;
    last_iteration_ns_ = now_ns;
  }

  Stats stats(DeadlineKind kind, std::uint64_t now_ns) const {
    return series_[static_cast<std::size_t>(kind)].snapshot(now_ns);
  }
  // The gap between iterations: `served` counts iterations, worst_* the longest gaps.
  Stats loop(std::uint64_t now_ns) const { return loop_.snapshot(now_ns); }
  std::uint64_t slack_ns() const { return slack_ns_; }
  bool over_slack(std::uint64_t lateness_ns) const { return lateness_ns > slack_ns_; }

 private:
  struct Series {
    Stats stats;
    WorstWindow window;
    Stats snapshot(std::uint64_t now_ns) const {
      Stats out = stats;
      out.worst_last_minute_ns = window.worst(now_ns);
      return out;
    }
  };

  std::uint64_t slack_ns_;
  std::array<Series, kDeadlineKinds> series_{};
  Series loop_;
  std::uint64_t last_iteration_ns_ = 0;
};

}  // namespace braid
