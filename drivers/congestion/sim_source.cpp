#include "congestion/sim_source.hpp"

namespace braid::congestion {

SimSource::SimSource(SimSettings settings, std::size_t members)
    : settings_(std::move(settings)),
      counters_(members),
      pause_us_(members, 0.0),
      marks_(members, 0.0),
      last_ns_(members, 0) {
  settings_.pause_permille.resize(members, 0);
  settings_.mark_permille.resize(members, 0);
  for (auto& c : counters_) {
    c.present = sched::CongestionCounters::kPauseFrames |
                sched::CongestionCounters::kPauseDurationUs |
                sched::CongestionCounters::kEcnMarked | sched::CongestionCounters::kCnp |
                sched::CongestionCounters::kTxPackets;
  }
}

sched::CongestionCounters SimSource::read(std::size_t member, std::uint64_t now_ns) {
  if (settings_.link_counters) {
    if (std::optional<sched::CongestionCounters> measured = settings_.link_counters(member)) {
      // An emulated link counts each priority; the pause fields are the bond priority's.
      const std::size_t bond = settings_.pfc.bond;
      if (((measured->priority_frames_read >> bond) & 1u) != 0)
        measured->pause_frames = measured->priority_pause_frames[bond];
      if (((measured->priority_duration_read >> bond) & 1u) != 0)
        measured->pause_duration_us = measured->priority_pause_duration_us[bond];
      return *measured;
    }
  }
  sched::CongestionCounters& c = counters_.at(member);
  if (last_ns_[member] != 0 && now_ns > last_ns_[member]) {
    const double elapsed_us = static_cast<double>(now_ns - last_ns_[member]) / 1000.0;
    const double paused = elapsed_us * settings_.pause_permille[member] / 1000.0;
    pause_us_[member] += paused;
    c.pause_duration_us = static_cast<std::uint64_t>(pause_us_[member]);
    if (paused > 0) ++c.pause_frames;
    const double sent = elapsed_us / 1000.0 * static_cast<double>(settings_.packets_per_ms);
    c.tx_packets += static_cast<std::uint64_t>(sent);
    marks_[member] += sent * settings_.mark_permille[member] / 1000.0;
    c.ecn_marked = static_cast<std::uint64_t>(marks_[member]);
    // The scripted pauses are on the bond's priority; the others' read 0.
    for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
      if (!settings_.pfc.uses(p)) continue;
      c.set_priority_pause_frames(p, p == settings_.pfc.bond ? c.pause_frames : 0);
      c.set_priority_pause_duration_us(p, p == settings_.pfc.bond ? c.pause_duration_us : 0);
    }
  }
  last_ns_[member] = now_ns;
  return c;
}

void SimSource::set(std::size_t member, const sched::CongestionCounters& counters) {
  counters_.at(member) = counters;
}

void SimSource::set_pause_permille(std::size_t member, std::uint32_t permille) {
  settings_.pause_permille.at(member) = permille;
}

std::unique_ptr<SimSource> make_sim_source(SimSettings settings, std::size_t members) {
  return std::make_unique<SimSource>(std::move(settings), members);
}

}  // namespace braid::congestion
