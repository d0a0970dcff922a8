// The health of one bond member, from everything the control thread knows about its link:
// carrier, BFD (optional), the error-rate signals, up/down delay and flap dampening. LACP is not
// the member's health: whether the partner lets it carry traffic is the member's service state
// (lib/bond/member_service.hpp), which takes this model as one of its inputs. Pure: the caller
// passes what it read and the time, and calls again at next_deadline_ns() so that delays and
// suppression end on time. Worker liveness is not a member's health (the engine watches it).
//
// State, first match wins:
//   suppressed  flap dampening holds the member out, whatever its link does meanwhile (a link
//               flapping every 2 s would otherwise log down/suppressed twice a cycle)
//   down        carrier_down, bfd_down (after down_delay), up_delay_pending (the link is up and
//               waiting for up_delay), pfc_storm (the PFC storm watchdog holds it out until the
//               pauses stop)
//   degraded    error_rate: a judged signal's rate is above its degrade threshold; the signal
//               that degraded first is the evidence
//   healthy
// Signals are judged only while the link is up: a down link carries no evidence, and its idle
// windows must not count towards a degraded signal's recovery (error_rate.hpp).
// Weight: 1000 permille healthy, degraded_weight_permille degraded, 0 down or suppressed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "health/error_rate.hpp"
#include "health/flap_dampening.hpp"
#include "health/link_delay.hpp"
#include "health/signal.hpp"

namespace braid::health {

enum class State : std::uint8_t { kHealthy, kDegraded, kDown, kSuppressed };
enum class Reason : std::uint8_t {
  kNone,  // healthy
  kCarrierDown,
  kBfdDown,
  kUpDelayPending,
  kFlapSuppressed,
  kErrorRate,  // with a signal: "error_rate:crc"
  kPfcStorm,   // the PFC storm watchdog (pfc_storm.hpp): paused, and its queue does not drain
};
// BFD of the member as the BFD core reports it; a bond without BFD passes kNotConfigured. Only
// kDown takes a member down (the BFD core decides what a peer's AdminDown maps to).
enum class BfdStatus : std::uint8_t { kNotConfigured, kDown, kUp };

const char* to_string(State state);
const char* to_string(Reason reason);
const char* to_string(BfdStatus status);

struct HealthSettings {
  std::uint64_t up_delay_ns = 0;
  std::uint64_t down_delay_ns = 0;
  std::uint32_t degraded_weight_permille = 100;
  std::uint64_t window_ns = 10 * kNsPerSecond;  // error-rate window, every signal
  DampeningSettings dampening;
  std::array<SignalSettings, kSignalCount> signals = default_signal_settings();
};
std::string settings_error(const HealthSettings& settings);

// One sample of every signal's counters; nullopt where the member's source has no such counter.
using CounterSnapshot = std::array<std::optional<CounterSample>, kSignalCount>;

struct HealthInputs {
  bool carrier = false;
  BfdStatus bfd = BfdStatus::kNotConfigured;
  // The PFC storm watchdog's verdict (it times detection and restoration itself: no up/down
  // delay, and a storm is no flap).
  bool pfc_storm = false;
  std::optional<CounterSnapshot> counters;  // only on a sampling tick
};

// Why the member is in its state: the numbers a `show health` prints.
struct Evidence {
  Signal signal = Signal::kCrc;  // kErrorRate only
  double rate_ppm = 0;
  std::uint64_t threshold_ppm = 0;
  double penalty = 0;          // kFlapSuppressed
  std::uint64_t until_ns = 0;  // kFlapSuppressed: reuse at; kUpDelayPending: up at
  std::uint64_t since_ns = 0;  // when this state and reason began
};

enum class EventKind : std::uint8_t {
  kState,              // from -> to, reason (to's), previous reason
  kFlap,               // penalty after it, suppressed or not
  kSignalDegraded,     // signal, rate, degrade threshold
  kSignalRecovered,    // signal, rate, recover threshold
  kSignalUnavailable,  // signal: the source has no counter for it (once per disappearance)
  kSignalAvailable,
};
struct HealthEvent {
  std::uint64_t time_ns = 0;
  EventKind kind = EventKind::kState;
  State from = State::kDown;
  State to = State::kDown;
  Reason reason = Reason::kNone;
  Reason previous_reason = Reason::kNone;
  Signal previous_signal = Signal::kCrc;  // previous_reason kErrorRate only
  Evidence evidence;  // of `to` for kState; signal / rate / threshold or penalty otherwise
};
// One line for the log, without the time: "down -> healthy (was carrier_down)".
std::string to_string(const HealthEvent& event);
// "error_rate:crc", "carrier_down", ...
std::string reason_string(Reason reason, Signal signal);

struct SignalView {
  Signal signal = Signal::kCrc;
  bool available = false;
  bool judged = false;
  bool degraded = false;
  double rate_ppm = 0;
  std::uint64_t errors = 0;  // in the window
  std::uint64_t frames = 0;
  std::uint64_t since_ns = 0;  // of the verdict
  std::uint64_t resets = 0;
};
struct HealthView {
  State state = State::kDown;
  Reason reason = Reason::kCarrierDown;
  Evidence evidence;
  std::uint32_t weight_permille = 0;
  HealthInputs last_inputs;  // counters left out
  double penalty = 0;
  std::uint64_t flaps = 0;
  std::optional<std::uint64_t> link_pending_until_ns;  // up_delay or down_delay running
  std::array<SignalView, kSignalCount> signals;
};

class MemberHealth {
 public:
  explicit MemberHealth(const HealthSettings& settings);

  // Everything known at now_ns (times never go back); the events this update caused, in order.
  std::vector<HealthEvent> update(const HealthInputs& inputs, std::uint64_t now_ns);

  State state() const { return state_; }
  Reason reason() const { return reason_; }
  const Evidence& evidence() const { return evidence_; }
  std::uint32_t weight_permille() const;
  // When the state can change with no new input: a delay or a suppression ends.
  std::optional<std::uint64_t> next_deadline_ns() const;
  HealthView view(std::uint64_t now_ns) const;
  const HealthSettings& settings() const { return settings_; }

 private:
  struct SignalState {
    ErrorRateWindow window;
    ErrorRateJudge judge;
    bool available = false;
    bool seen = false;  // a snapshot has been judged (the first absence is logged too)
  };

  void sample(const CounterSnapshot& counters, std::uint64_t now_ns,
              std::vector<HealthEvent>& events);
  // The state, reason and evidence the inputs and machines say now.
  void classify(std::uint64_t now_ns, State& state, Reason& reason, Evidence& evidence) const;
  std::optional<Signal> first_degraded() const;

  HealthSettings settings_;
  LinkDelay link_;
  FlapDampening dampening_;
  std::vector<SignalState> signals_;
  HealthInputs inputs_;
  State state_ = State::kDown;
  Reason reason_ = Reason::kCarrierDown;
  Evidence evidence_;
};

}  // namespace braid::health
