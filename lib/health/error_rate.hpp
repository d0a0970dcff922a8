// One error-rate signal of one member: a sliding window over periodic samples of two monotonic
// counters (errors, frames), and a judge with hysteresis on the rate.
//
// Window. Each sample after the first adds one interval (the counters' deltas since the previous
// sample); the window holds the intervals that ended within the last window_ns, and its rate is
// sum(errors) * 1e6 / sum(frames) in ppm. With 1 s samples and a 10 s window that is the last
// ten intervals. A counter that went backwards was reset (a driver restart, a port reconfigured,
// a narrow counter wrapping): nobody knows when within the interval it happened or whether the
// other counter went with it, so that interval counts as no errors out of no frames and the new
// values become the baseline. A reset never reads as a huge delta.
//
// Judge. Clean -> degraded when the window holds at least min_frames and its rate is above
// degrade_ppm. Degraded -> clean when every judgement for recover_hold_ns said "clean": a window
// without any error (an idle window is no evidence of errors; counting it as clean keeps a member
// cut to weight 0 from staying degraded forever, and recover_ppm 0 means "no errors"), or one of
// at least min_frames below recover_ppm. Anything else restarts the hold. Between recover_ppm and
// degrade_ppm nothing changes: that band is the hysteresis.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include "health/signal.hpp"

namespace braid::health {

struct CounterSample {
  std::uint64_t errors = 0;
  std::uint64_t frames = 0;
};

class ErrorRateWindow {
 public:
  explicit ErrorRateWindow(std::uint64_t window_ns) : window_ns_(window_ns) {}

  // The counters as read at now_ns (samples come in time order).
  void sample(std::uint64_t now_ns, const CounterSample& counters);
  // Forgets the baseline and the window (the counter went away).
  void clear();

  std::uint64_t errors() const { return errors_; }
  std::uint64_t frames() const { return frames_; }
  // Errors per million frames over the window; 0 without frames.
  double rate_ppm() const;
  bool has_baseline() const { return baseline_.has_value(); }
  std::uint64_t resets() const { return resets_; }
  std::uint64_t window_ns() const { return window_ns_; }

 private:
  struct Interval {
    std::uint64_t end_ns;
    std::uint64_t errors;
    std::uint64_t frames;
  };
  // Safety bound for callers that sample far faster than the window needs.
  static constexpr std::size_t kMaxIntervals = 4096;

  void drop_before(std::uint64_t now_ns);

  std::uint64_t window_ns_;
  std::optional<CounterSample> baseline_;
  std::deque<Interval> intervals_;
  std::uint64_t errors_ = 0;  // sums over intervals_
  std::uint64_t frames_ = 0;
  std::uint64_t resets_ = 0;
};

class ErrorRateJudge {
 public:
  explicit ErrorRateJudge(const SignalSettings& settings) : settings_(settings) {}

  // Judges the window as it is at now_ns; true when the verdict changed.
  bool judge(const ErrorRateWindow& window, std::uint64_t now_ns);
  // No judgement this time, and a recovery hold under way starts again (the link is down: no
  // evidence either way).
  void restart_hold() { clean_since_ns_.reset(); }
  void reset();

  bool degraded() const { return degraded_; }
  // When the current verdict began (0 before the first change).
  std::uint64_t since_ns() const { return since_ns_; }
  // While degraded: when the current run of clean judgements began (the recovery hold).
  std::optional<std::uint64_t> clean_since_ns() const { return clean_since_ns_; }
  const SignalSettings& settings() const { return settings_; }

 private:
  SignalSettings settings_;
  bool degraded_ = false;
  std::uint64_t since_ns_ = 0;
  std::optional<std::uint64_t> clean_since_ns_;
};

}  // namespace braid::health
