#include "sched/congestion.hpp"

#include <algorithm>

namespace braid::sched {
namespace {

// Counters that went backwards (a port reset, a source restarted) read as no activity.
double delta(std::uint64_t before, std::uint64_t after) {
  return after >= before ? static_cast<double>(after - before) : 0.0;
}

}  // namespace

CongestionCounters on_priority(const CongestionCounters& counters, std::size_t priority,
                               std::size_t bond_priority) {
  if (priority == bond_priority || priority >= kPfcPriorities) return counters;
  CongestionCounters c = counters;
  const auto field = [priority](std::uint8_t read, CongestionCounters::Field f) {
    return ((read >> priority) & 1u) != 0 ? static_cast<std::uint32_t>(f) : 0u;
  };
  c.present &= ~static_cast<std::uint32_t>(CongestionCounters::kPauseFrames |
                                           CongestionCounters::kPauseDurationUs);
  c.present |= field(c.priority_frames_read, CongestionCounters::kPauseFrames) |
               field(c.priority_duration_read, CongestionCounters::kPauseDurationUs);
  c.pause_frames = c.priority_pause_frames[priority];
  c.pause_duration_us = c.priority_pause_duration_us[priority];
  return c;
}

double CongestionInputs::score() const {
  return std::clamp(std::max({pause_fraction, mark_fraction, discard_fraction}), 0.0, 1.0);
}

CongestionInputs congestion_inputs(const CongestionCounters& before,
                                   const CongestionCounters& after, std::uint64_t period_ns,
                                   const ScoreSettings& settings) {
  CongestionInputs inputs;
  if (period_ns == 0) return inputs;
  const double period_us = static_cast<double>(period_ns) / 1000.0;
  if (after.has(CongestionCounters::kPauseDurationUs)) {
    inputs.pause_fraction = delta(before.pause_duration_us, after.pause_duration_us) / period_us;
  } else if (after.has(CongestionCounters::kPauseFrames)) {
    inputs.pause_fraction =
        delta(before.pause_frames, after.pause_frames) * settings.pause_quanta_us / period_us;
  }
  const double sent =
      after.has(CongestionCounters::kTxPackets) ? delta(before.tx_packets, after.tx_packets) : 0.0;
  const double marks = delta(before.ecn_marked, after.ecn_marked) + delta(before.cnp, after.cnp);
  if (marks > 0) {
    // Without a packet count, any mark is taken as one step of congestion.
    const double fraction = sent > 0 ? marks / sent : 1.0 / settings.mark_gain;
    inputs.mark_fraction = fraction * settings.mark_gain;
  }
  const double discards = delta(before.discards, after.discards);
  if (discards > 0) inputs.discard_fraction = discards / (sent + discards);
  inputs.pause_fraction = std::clamp(inputs.pause_fraction, 0.0, 1.0);
  inputs.mark_fraction = std::clamp(inputs.mark_fraction, 0.0, 1.0);
  return inputs;
}

}  // namespace braid::sched
