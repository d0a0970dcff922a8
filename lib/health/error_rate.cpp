#include "health/error_rate.hpp"

namespace braid::health {

void ErrorRateWindow::sample(std::uint64_t now_ns, const CounterSample& counters) {
  if (baseline_) {
    Interval interval{now_ns, 0, 0};
    if (counters.errors >= baseline_->errors && counters.frames >= baseline_->frames) {
      interval.errors = counters.errors - baseline_->errors;
      interval.frames = counters.frames - baseline_->frames;
    } else {
      ++resets_;  // the interval is lost, the new values are the baseline
    }
    if (intervals_.size() == kMaxIntervals) {
      errors_ -= intervals_.front().errors;
      frames_ -= intervals_.front().frames;
      intervals_.pop_front();
    }
    intervals_.push_back(interval);
    errors_ += interval.errors;
    frames_ += interval.frames;
  }
  baseline_ = counters;
  drop_before(now_ns);
}

void ErrorRateWindow::drop_before(std::uint64_t now_ns) {
  while (!intervals_.empty() && intervals_.front().end_ns + window_ns_ <= now_ns) {
    errors_ -= intervals_.front().errors;
    frames_ -= intervals_.front().frames;
    intervals_.pop_front();
  }
}

void ErrorRateWindow::clear() {
  baseline_.reset();
  intervals_.clear();
  errors_ = 0;
  frames_ = 0;
}

double ErrorRateWindow::rate_ppm() const {
  if (frames_ == 0) return 0;
  return static_cast<double>(errors_) * static_cast<double>(kPpm) / static_cast<double>(frames_);
}

bool ErrorRateJudge::judge(const ErrorRateWindow& window, std::uint64_t now_ns) {
  if (!settings_.judged) return false;
  const bool enough_frames = window.frames() >= settings_.min_frames;
  const double rate = window.rate_ppm();
  if (!degraded_) {
    if (!enough_frames || rate <= static_cast<double>(settings_.degrade_ppm)) return false;
    degraded_ = true;
    since_ns_ = now_ns;
    clean_since_ns_.reset();
    return true;
  }
  // No error at all is clean whatever the thresholds: with recover_ppm 0 a busy member (always
  // enough frames, a rate never below 0) stayed degraded for ever.
  const bool clean =
      window.errors() == 0 || (enough_frames && rate < static_cast<double>(settings_.recover_ppm));
  if (!clean) {
    clean_since_ns_.reset();
    return false;
  }
  if (!clean_since_ns_) clean_since_ns_ = now_ns;
  if (now_ns - *clean_since_ns_ < settings_.recover_hold_ns) return false;
  degraded_ = false;
  since_ns_ = now_ns;
  clean_since_ns_.reset();
  return true;
}

void ErrorRateJudge::reset() {
  degraded_ = false;
  clean_since_ns_.reset();
}

}  // namespace braid::health
