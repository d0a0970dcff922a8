// What the health model says in words: names for the console and telemetry, one log line per
// event, and the settings check the config loader reports.
#include <array>
#include <cmath>
#include <cstdio>

#include "health/member_health.hpp"

namespace braid::health {
namespace {

// Indexed by the enums' values, in their order (member_health.hpp).
constexpr std::array<const char*, 4> kStateNames = {"healthy", "degraded", "down", "suppressed"};
constexpr std::array<const char*, 7> kReasonNames = {
    "none",       "carrier_down", "bfd_down", "up_delay_pending", "flap_suppressed",
    "error_rate", "pfc_storm",
};
constexpr std::array<const char*, 3> kBfdNames = {"not_configured", "down", "up"};

template <typename Enum, std::size_t N>
const char* name_of(const std::array<const char*, N>& names, Enum value) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : "unknown";
}

std::string seconds_text(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ns) / kNsPerSecond);
  return text;
}

std::string ppm_text(double ppm) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f ppm", ppm);
  return text;
}

// The reason with its numbers, as of the event's time.
std::string describe(Reason reason, const Evidence& evidence, std::uint64_t time_ns) {
  const std::string name = reason_string(reason, evidence.signal);
  const std::uint64_t left = evidence.until_ns > time_ns ? evidence.until_ns - time_ns : 0;
  switch (reason) {
    case Reason::kUpDelayPending:
      return name + " (up in " + seconds_text(left) + ")";
    case Reason::kFlapSuppressed:
      return name + " (penalty " + std::to_string(std::llround(evidence.penalty)) + ", reuse in " +
             seconds_text(left) + ")";
    case Reason::kErrorRate:
      return name + " (" + ppm_text(evidence.rate_ppm) + " > " +
             ppm_text(static_cast<double>(evidence.threshold_ppm)) + ")";
    case Reason::kNone:
    case Reason::kCarrierDown:
    case Reason::kBfdDown:
    case Reason::kPfcStorm:
      break;
  }
  return name;
}

}  // namespace

const char* to_string(State state) {
  return name_of(kStateNames, state);
}

const char* to_string(Reason reason) {
  return name_of(kReasonNames, reason);
}

const char* to_string(BfdStatus status) {
  return name_of(kBfdNames, status);
}

std::string reason_string(Reason reason, Signal signal) {
  if (reason == Reason::kErrorRate) return std::string("error_rate:") + to_string(signal);
  return to_string(reason);
}

std::string to_string(const HealthEvent& event) {
  const Evidence& evidence = event.evidence;
  const std::string signal = to_string(evidence.signal);
  switch (event.kind) {
    case EventKind::kState: {
      if (event.from == event.to) {
        return std::string(to_string(event.to)) + ": " +
               reason_string(event.previous_reason, event.previous_signal) + " -> " +
               describe(event.reason, evidence, event.time_ns);
      }
      std::string line = std::string(to_string(event.from)) + " -> " + to_string(event.to);
      if (event.reason != Reason::kNone)
        line += ": " + describe(event.reason, evidence, event.time_ns);
      if (event.previous_reason != Reason::kNone)
        line += " (was " + reason_string(event.previous_reason, event.previous_signal) + ")";
      return line;
    }
    case EventKind::kFlap: {
      std::string line = "flap: penalty " + std::to_string(std::llround(evidence.penalty));
      if (evidence.until_ns > event.time_ns)
        line += ", suppressed, reuse in " + seconds_text(evidence.until_ns - event.time_ns);
      return line;
    }
    case EventKind::kSignalDegraded:
      return "signal " + signal + " degraded: " + ppm_text(evidence.rate_ppm) + " > " +
             ppm_text(static_cast<double>(evidence.threshold_ppm));
    case EventKind::kSignalRecovered:
      return "signal " + signal + " recovered: " + ppm_text(evidence.rate_ppm) + " < " +
             ppm_text(static_cast<double>(evidence.threshold_ppm)) + " for the recovery hold";
    case EventKind::kSignalUnavailable:
      return "signal " + signal + " unavailable: the member's counter source has no counter for it";
    case EventKind::kSignalAvailable:
      return "signal " + signal + " available";
  }
  return "unknown event";
}

std::string settings_error(const HealthSettings& settings) {
  if (std::string error = settings_error(settings.dampening); !error.empty()) return error;
  for (std::size_t i = 0; i < kSignalCount; ++i) {
    if (std::string error = settings_error(static_cast<Signal>(i), settings.signals[i]);
        !error.empty())
      return error;
  }
  if (settings.degraded_weight_permille > 1000) {
    return "degraded_weight_permille (" + std::to_string(settings.degraded_weight_permille) +
           ") must be at most 1000";
  }
  if (settings.window_ns == 0) return "the error-rate window must be above 0";
  return "";
}

}  // namespace braid::health
