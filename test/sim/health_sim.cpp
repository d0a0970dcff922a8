#include "health_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace braid::health::sim {

double seconds(std::uint64_t ns) {
  return static_cast<double>(ns) / static_cast<double>(kNsPerSecond);
}

HealthWorld::HealthWorld(const HealthSettings& settings, std::uint64_t sample_period_ns)
    : member_(settings), sample_period_ns_(sample_period_ns) {
  weights_.emplace_back(0, member_.weight_permille());
}

void HealthWorld::at(std::uint64_t time_ns, std::function<void()> action) {
  script_.emplace(time_ns, std::move(action));
}

void HealthWorld::flap(std::uint64_t first_down_ns, std::uint64_t period_ns, std::uint64_t down_ns,
                       int count) {
  for (int i = 0; i < count; ++i) {
    const std::uint64_t down_at = first_down_ns + static_cast<std::uint64_t>(i) * period_ns;
    at(down_at, [this] { set_carrier(false); });
    at(down_at + down_ns, [this] { set_carrier(true); });
  }
}

void HealthWorld::run_until(std::uint64_t time_ns) {
  while (true) {
    std::uint64_t next = next_sample_ns_;
    if (!script_.empty()) next = std::min(next, script_.begin()->first);
    if (const auto deadline = member_.next_deadline_ns()) next = std::min(next, *deadline);
    if (next > time_ns) break;
    now_ns_ = std::max(now_ns_, next);
    receive_until(now_ns_);
    while (!script_.empty() && script_.begin()->first <= now_ns_) {
      auto action = std::move(script_.begin()->second);
      script_.erase(script_.begin());
      action();
    }
    const bool sample = next_sample_ns_ <= now_ns_;
    if (sample) next_sample_ns_ = now_ns_ + sample_period_ns_;
    step(sample);
  }
  now_ns_ = std::max(now_ns_, time_ns);
  receive_until(now_ns_);
}

void HealthWorld::receive_until(std::uint64_t time_ns) {
  if (time_ns <= received_until_ns_) return;
  if (inputs_.carrier) {
    const double frames =
        static_cast<double>(frames_per_second_) * seconds(time_ns - received_until_ns_);
    crc_frames_ += frames;
    crc_errors_ += frames * static_cast<double>(crc_ppm_) / kPpm;
  }
  received_until_ns_ = time_ns;
}

void HealthWorld::step(bool sample) {
  HealthInputs inputs = inputs_;
  if (sample) {
    // What a receiving port counts; the source passes good + bad frames as `frames` (signal.hpp).
    inputs.counters.emplace();
    (*inputs.counters)[static_cast<std::size_t>(Signal::kCrc)] =
        CounterSample{static_cast<std::uint64_t>(std::llround(crc_errors_)),
                      static_cast<std::uint64_t>(std::llround(crc_frames_))};
  }
  for (const HealthEvent& event : member_.update(inputs, now_ns_)) {
    if (event.kind == EventKind::kSignalUnavailable) continue;  // only crc is simulated
    timeline_.push_back({now_ns_, event, member_.weight_permille(), to_string(event)});
  }
  if (weights_.back().second != member_.weight_permille())
    weights_.emplace_back(now_ns_, member_.weight_permille());
}

std::vector<TimelineEntry> HealthWorld::state_changes() const {
  std::vector<TimelineEntry> out;
  for (const TimelineEntry& entry : timeline_) {
    if (entry.event.kind == EventKind::kState) out.push_back(entry);
  }
  return out;
}

void HealthWorld::print(const std::string& scenario) const {
  std::printf("\n[health-sim] %s\n", scenario.c_str());
  for (const TimelineEntry& entry : timeline_) {
    std::printf("  %9.3f s  weight %4u  %s\n", seconds(entry.time_ns), entry.weight_permille,
                entry.text.c_str());
  }
}

}  // namespace braid::health::sim
