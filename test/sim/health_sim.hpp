// A deterministic world for one bond member's health: a scripted link (carrier, BFD) and NIC
// (frames a second, CRC errors per million) on a simulated clock. Time only moves in
// run_until(); it jumps to the next scripted change, the next counter sample (every second, as
// the control thread's counter poll) or the member's own deadline (a delay or a suppression
// ending), whichever comes first, so minutes of simulated time take microseconds. Every health
// event is kept with its time and the member's weight after it: the timeline the scenarios
// assert on and print.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "health/member_health.hpp"

namespace braid::health::sim {

struct TimelineEntry {
  std::uint64_t time_ns;
  HealthEvent event;
  std::uint32_t weight_permille;  // after the event
  std::string text;
};

class HealthWorld {
 public:
  explicit HealthWorld(const HealthSettings& settings,
                       std::uint64_t sample_period_ns = kNsPerSecond);

  // Scripted changes take effect at time_ns (before a sample due at the same time).
  void at(std::uint64_t time_ns, std::function<void()> action);
  // The link goes down at `first_down_ns` and every `period_ns`, staying down `down_ns` each time,
  // `count` times.
  void flap(std::uint64_t first_down_ns, std::uint64_t period_ns, std::uint64_t down_ns, int count);

  void set_carrier(bool up) { inputs_.carrier = up; }
  void set_bfd(BfdStatus status) { inputs_.bfd = status; }
  // Frames received per second, and the share of them with a bad FCS (ppm); while the carrier
  // is down, nothing arrives.
  void set_traffic(std::uint64_t frames_per_second) { frames_per_second_ = frames_per_second; }
  void set_crc_ppm(std::uint64_t ppm) { crc_ppm_ = ppm; }
  // A one-off burst of CRC errors, counted by the next sample.
  void crc_burst(std::uint64_t errors) { crc_errors_ += static_cast<double>(errors); }

  void run_until(std::uint64_t time_ns);
  std::uint64_t now() const { return now_ns_; }
  const MemberHealth& member() const { return member_; }
  const std::vector<TimelineEntry>& timeline() const { return timeline_; }
  // The state changes only (the log a network engineer reads first).
  std::vector<TimelineEntry> state_changes() const;
  // The member's weight over time: every (time, weight) at which it changed.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> weights() const { return weights_; }
  void print(const std::string& scenario) const;

 private:
  // The port counts what arrived since the last call, at the rates in force meanwhile.
  void receive_until(std::uint64_t time_ns);
  void step(bool sample);

  MemberHealth member_;
  std::uint64_t sample_period_ns_;
  std::uint64_t now_ns_ = 0;
  std::uint64_t next_sample_ns_ = 0;
  std::multimap<std::uint64_t, std::function<void()>> script_;
  HealthInputs inputs_;
  std::uint64_t frames_per_second_ = 0;
  std::uint64_t crc_ppm_ = 0;
  std::uint64_t received_until_ns_ = 0;
  double crc_frames_ = 0;  // good + bad frames received (exact: rates times whole milliseconds)
  double crc_errors_ = 0;
  std::vector<TimelineEntry> timeline_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> weights_;
};

double seconds(std::uint64_t ns);

}  // namespace braid::health::sim
