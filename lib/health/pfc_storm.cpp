#include "health/pfc_storm.hpp"

#include <utility>

#include "health/signal.hpp"

namespace braid::health {
namespace {

std::string ms(std::uint64_t ns) {
  return std::to_string(ns / kNsPerMs) + " ms";
}

std::string range_error(const char* name, std::uint32_t value, std::uint32_t max) {
  if (value >= kMinStormMs && value <= max) return "";
  return std::string("pfc watchdog: ") + name + " (" + std::to_string(value) +
         ") must be between " + std::to_string(kMinStormMs) + " and " + std::to_string(max);
}

template <std::size_t... I>
std::array<PfcStormDetector, kPfcPriorities> make_detectors(const PfcStormSettings& settings,
                                                            std::index_sequence<I...>) {
  return {PfcStormDetector(settings, static_cast<std::uint8_t>(I))...};
}

}  // namespace

std::string settings_error(const PfcStormSettings& settings) {
  std::string error = range_error("storm_detect_ms", settings.storm_detect_ms, kMaxStormDetectMs);
  if (error.empty()) {
    error = range_error("storm_restore_ms", settings.storm_restore_ms, kMaxStormRestoreMs);
  }
  return error;
}

const char* to_string(PfcStormEventKind kind) {
  return kind == PfcStormEventKind::storm_began ? "storm_began" : "storm_ended";
}

PfcStormDetector::PfcStormDetector(const PfcStormSettings& settings, std::uint8_t priority)
    : detect_ns_(std::uint64_t{settings.storm_detect_ms} * kNsPerMs),
      restore_ns_(std::uint64_t{settings.storm_restore_ms} * kNsPerMs),
      priority_(priority) {}

std::optional<PfcStormEvent> PfcStormDetector::sample(std::uint64_t now_ns,
                                                      const PfcQueueSample& counters) {
  if (started_ && now_ns <= last_ns_) return std::nullopt;
  const PfcQueueSample last = last_;
  const std::uint64_t interval_start_ns = last_ns_;
  const bool first = !started_;
  started_ = true;
  last_ = counters;
  last_ns_ = now_ns;
  if (first) return std::nullopt;

  const bool durations = counters.pause_duration_us && last.pause_duration_us;
  const bool backwards = counters.pause_frames < last.pause_frames ||
                         counters.tx_packets < last.tx_packets ||
                         (durations && *counters.pause_duration_us < *last.pause_duration_us);
  if (backwards) {  // a reset or a wrap: a new baseline, proof of nothing
    stuck_since_ns_.reset();
    return std::nullopt;
  }
  const std::uint64_t pause_frames = counters.pause_frames - last.pause_frames;
  // Plain values with a flag rather than an optional: GCC 12 at -O3 (the release build) cannot
  // see through the optional's engaged check and calls its value maybe-uninitialized.
  const std::uint64_t pause_us =
      durations ? counters.pause_duration_us.value_or(0) - last.pause_duration_us.value_or(0) : 0;
  const bool paused = pause_frames > 0 || pause_us > 0;

  if (storming_) {
    if (paused) {
      last_pause_ns_ = now_ns;
      storm_pause_frames_ += pause_frames;
      return std::nullopt;
    }
    if (now_ns - last_pause_ns_ >= restore_ns_) return end_storm(now_ns);
    return std::nullopt;
  }

  const bool drained = counters.tx_packets > last.tx_packets;
  const bool empty = counters.depth_descriptors == 0U;
  if (!paused || drained || empty) {
    stuck_since_ns_.reset();
    return std::nullopt;
  }
  if (!stuck_since_ns_) {
    // From the interval's start, or, where the NIC counts time paused, from when the pauses in
    // it began: a queue with nothing to send before the pause came is not stuck before it.
    const std::uint64_t paused_ns = pause_us * 1000;
    stuck_since_ns_ = durations && paused_ns < now_ns - interval_start_ns ? now_ns - paused_ns
                                                                          : interval_start_ns;
    stuck_pause_frames_ = 0;
    stuck_pause_us_ = 0;
  }
  stuck_pause_frames_ += pause_frames;
  stuck_pause_us_ =
      stuck_pause_us_ && durations ? std::optional(*stuck_pause_us_ + pause_us) : std::nullopt;
  if (now_ns - *stuck_since_ns_ >= detect_ns_) return begin_storm(now_ns);
  return std::nullopt;
}

std::optional<PfcStormEvent> PfcStormDetector::begin_storm(std::uint64_t now_ns) {
  const std::uint64_t stuck_ns = now_ns - *stuck_since_ns_;
  PfcStormEvent event{
      PfcStormEventKind::storm_began, priority_, now_ns, stuck_pause_frames_, stuck_ns, ""};
  event.evidence =
      "priority " + std::to_string(priority_) + ": " + std::to_string(stuck_pause_frames_) +
      " pause frames" +
      (stuck_pause_us_ ? " (" + std::to_string(*stuck_pause_us_ / 1000) + " ms paused)"
                       : std::string()) +
      " in " + ms(stuck_ns) + " while its TX queue sent nothing (" +
      (last_.depth_descriptors ? std::to_string(*last_.depth_descriptors) + " descriptors waiting"
                               : std::string("queue depth unknown")) +
      ")";
  storming_ = true;
  storm_began_ns_ = now_ns;
  last_pause_ns_ = now_ns;
  storm_pause_frames_ = 0;
  stuck_since_ns_.reset();
  ++storms_;
  return event;
}

std::optional<PfcStormEvent> PfcStormDetector::end_storm(std::uint64_t now_ns) {
  const std::uint64_t storm_ns = now_ns - storm_began_ns_;
  PfcStormEvent event{
      PfcStormEventKind::storm_ended, priority_, now_ns, storm_pause_frames_, storm_ns, ""};
  event.evidence = "priority " + std::to_string(priority_) + ": no pause frames for " +
                   ms(now_ns - last_pause_ns_) + "; the storm lasted " + ms(storm_ns) + " with " +
                   std::to_string(storm_pause_frames_) + " more pause frames";
  storming_ = false;
  return event;
}

PfcStormWatchdog::PfcStormWatchdog(const PfcStormSettings& settings)
    : detectors_(make_detectors(settings, std::make_index_sequence<kPfcPriorities>())) {}

std::optional<PfcStormEvent> PfcStormWatchdog::sample(std::uint64_t now_ns, std::uint8_t priority,
                                                      const PfcQueueSample& counters) {
  return detectors_.at(priority).sample(now_ns, counters);
}

std::uint8_t PfcStormWatchdog::storming_mask() const {
  unsigned mask = 0;
  for (const PfcStormDetector& detector : detectors_) {
    if (detector.storming()) mask |= 1U << detector.priority();
  }
  return static_cast<std::uint8_t>(mask);
}

}  // namespace braid::health
