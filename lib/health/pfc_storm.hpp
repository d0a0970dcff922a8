// The PFC storm watchdog of one member: per priority, whether the member's TX queue for that
// priority is stuck under a pause that does not end. PFC (IEEE 802.1Qbb) pauses one priority at a
// time, so each priority is judged alone: a storm on priority 3 says nothing about priority 0.
//
// The caller samples every scheduler period (10 ms, say) with a monotonic ns timestamp and, per
// priority in use: the cumulative pause frames received for it (mlx5 rx_prio<N>_pause), the
// cumulative pause duration where the NIC counts it (rx_prio<N>_pause_duration), and the progress
// of the TX queue carrying it: cumulative packets sent and the descriptors in use, when the queue
// probe can tell.
//
// Detection. An interval between two samples is stuck when pauses arrived in it (the frame or the
// duration counter rose), the queue sent nothing, and the queue was not known to be empty (depth
// above 0, or unknown: then TX progress alone decides). A storm is declared once the intervals have
// been stuck back to back for storm_detect_ms, counted from the start of the first (or, where the
// NIC counts time paused, from when its pauses began: the first interval may hold a quiet spell
// before the pause): the queue sent nothing for all of it. A pause that never ends is therefore
// declared between storm_detect_ms and storm_detect_ms + one sample after it began
// (storm_detect_ms rounded up to whole samples); without a duration counter, on a queue that had
// nothing to send just before the pause, up to one sample sooner. Pauses
// that the queue drains through (ordinary PFC: paused, then sending again) never make a storm, nor
// does a burst of pauses shorter than storm_detect_ms. This is the switch PFC watchdogs' test:
// Juniper's watchdog declares a stall when a queue with a running pause timer has packets and
// transmitted none since the last poll; SONiC on NVIDIA Spectrum requires packets queued, none sent
// and pauses blocking the queue for 99% of the interval (sonic-swss #3036); Cisco Nexus checks
// whether the no-drop queue drains within the watchdog interval.
//
// Restoration follows SONiC's (pfcwd: "no PFC frame received over the restoration time"): the
// storm ends storm_restore_ms after the last sample that saw a pause, whatever the queue does (the
// caller has moved traffic off it). Pauses that come back within storm_restore_ms keep the storm
// going; after it ended, a new storm needs a whole storm_detect_ms again.
//
// Defaults: storm_detect_ms 100 (Cisco Nexus' and Junos' 100 ms poll; SONiC's default detection is
// 200 ms at a 200 ms poll, which braid's 10 ms sampling makes needless), storm_restore_ms 200
// (SONiC's and Junos' default restoration/recovery time). The ranges follow SONiC's bounds above
// and braid's 10 ms scheduler period below.
//
// A counter that goes back (a port reset, a wrap, a NIC that cleared its stats) is a new baseline:
// that interval proves nothing and never declares a storm.
//
// What to do about a storm (move the priority's buckets off the member, or drop and count) is the
// caller's business: the watchdog returns events with their evidence for the logs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace braid::health {

inline constexpr std::size_t kPfcPriorities = 8;  // IEEE 802.1Qbb: one per 802.1p priority

struct PfcStormSettings {
  std::uint32_t storm_detect_ms = 100;
  std::uint32_t storm_restore_ms = 200;
};

inline constexpr std::uint32_t kMinStormMs = 10;  // braid's scheduler period
inline constexpr std::uint32_t kMaxStormDetectMs = 5'000;
inline constexpr std::uint32_t kMaxStormRestoreMs = 60'000;

// An empty string when the settings are consistent, else what is wrong, e.g.
// "pfc watchdog: storm_detect_ms (5) must be between 10 and 5000".
std::string settings_error(const PfcStormSettings& settings);

// One priority's counters at one sample.
struct PfcQueueSample {
  std::uint64_t pause_frames = 0;                  // cumulative, received for the priority
  std::optional<std::uint64_t> pause_duration_us;  // cumulative time paused, if counted
  std::uint64_t tx_packets = 0;                    // cumulative, sent by its TX queue
  std::optional<std::uint32_t> depth_descriptors;  // in use now, if the probe can tell
};

enum class PfcStormEventKind : std::uint8_t { storm_began, storm_ended };

const char* to_string(PfcStormEventKind kind);

struct PfcStormEvent {
  PfcStormEventKind kind{};
  std::uint8_t priority = 0;
  std::uint64_t at_ns = 0;
  // storm_began: the pause frames and the time the queue was stuck before the storm was declared.
  // storm_ended: the pause frames and the time from the declaration to the end.
  std::uint64_t pause_frames = 0;
  std::uint64_t duration_ns = 0;
  std::string evidence;  // one line for the logs, e.g. "priority 3: 41 pause frames in 100 ms ..."
};

// One priority of one member.
class PfcStormDetector {
 public:
  PfcStormDetector(const PfcStormSettings& settings, std::uint8_t priority);

  // A sample at now_ns; an event when the storm began or ended with it. The first sample is a
  // baseline; a sample whose time does not advance is ignored.
  std::optional<PfcStormEvent> sample(std::uint64_t now_ns, const PfcQueueSample& counters);

  bool storming() const { return storming_; }
  std::uint8_t priority() const { return priority_; }
  // While storming: when it was declared, and the last sample that saw a pause.
  std::uint64_t storm_began_ns() const { return storm_began_ns_; }
  std::uint64_t last_pause_ns() const { return last_pause_ns_; }
  // While the queue is stuck but no storm is declared yet: since when (nullopt: not stuck).
  std::optional<std::uint64_t> stuck_since_ns() const { return stuck_since_ns_; }
  std::uint64_t storms() const { return storms_; }

 private:
  std::optional<PfcStormEvent> begin_storm(std::uint64_t now_ns);
  std::optional<PfcStormEvent> end_storm(std::uint64_t now_ns);

  std::uint64_t detect_ns_;
  std::uint64_t restore_ns_;
  std::uint8_t priority_;

  bool started_ = false;
  std::uint64_t last_ns_ = 0;
  PfcQueueSample last_;

  std::optional<std::uint64_t> stuck_since_ns_;
  std::uint64_t stuck_pause_frames_ = 0;
  std::optional<std::uint64_t> stuck_pause_us_;  // nullopt once an interval lacked the duration

  bool storming_ = false;
  std::uint64_t storm_began_ns_ = 0;
  std::uint64_t last_pause_ns_ = 0;
  std::uint64_t storm_pause_frames_ = 0;
  std::uint64_t storms_ = 0;
};

// The eight priorities of one member.
class PfcStormWatchdog {
 public:
  explicit PfcStormWatchdog(const PfcStormSettings& settings);

  // `priority` below kPfcPriorities (std::out_of_range otherwise). Priorities the member does not
  // use need no samples.
  std::optional<PfcStormEvent> sample(std::uint64_t now_ns, std::uint8_t priority,
                                      const PfcQueueSample& counters);

  bool storming(std::uint8_t priority) const { return detectors_.at(priority).storming(); }
  // Bit p set: priority p is in a storm.
  std::uint8_t storming_mask() const;
  const PfcStormDetector& detector(std::uint8_t priority) const { return detectors_.at(priority); }

 private:
  std::array<PfcStormDetector, kPfcPriorities> detectors_;
};

}  // namespace braid::health
