#include "health/member_health.hpp"

#include <algorithm>

namespace braid::health {
namespace {

bool same_cause(State state, Reason reason, const Evidence& evidence, State old_state,
                Reason old_reason, const Evidence& old_evidence) {
  return state == old_state && reason == old_reason &&
         (reason != Reason::kErrorRate || evidence.signal == old_evidence.signal);
}

}  // namespace

MemberHealth::MemberHealth(const HealthSettings& settings)
    : settings_(settings),
      link_(settings.up_delay_ns, settings.down_delay_ns),
      dampening_(settings.dampening) {
  signals_.reserve(kSignalCount);
  for (const SignalSettings& signal : settings.signals)
    signals_.push_back({ErrorRateWindow(settings.window_ns), ErrorRateJudge(signal)});
}

std::vector<HealthEvent> MemberHealth::update(const HealthInputs& inputs, std::uint64_t now_ns) {
  std::vector<HealthEvent> events;
  inputs_ = inputs;
  inputs_.counters.reset();
  const bool raw_up = inputs.carrier && inputs.bfd != BfdStatus::kDown;
  if (link_.update(raw_up, now_ns) && !link_.up()) {
    dampening_.on_flap(now_ns);
    HealthEvent flap;
    flap.time_ns = now_ns;
    flap.kind = EventKind::kFlap;
    flap.evidence.penalty = dampening_.penalty(now_ns);
    flap.evidence.until_ns = dampening_.reuse_at(now_ns);
    flap.evidence.since_ns = now_ns;
    events.push_back(flap);
  }
  if (inputs.counters) sample(*inputs.counters, now_ns, events);

  State state = State::kHealthy;
  Reason reason = Reason::kNone;
  Evidence evidence;
  classify(now_ns, state, reason, evidence);
  const bool same = same_cause(state, reason, evidence, state_, reason_, evidence_);
  evidence.since_ns = same ? evidence_.since_ns : now_ns;
  if (!same) {
    events.push_back({.time_ns = now_ns,
                      .kind = EventKind::kState,
                      .from = state_,
                      .to = state,
                      .reason = reason,
                      .previous_reason = reason_,
                      .previous_signal = evidence_.signal,
                      .evidence = evidence});
  }
  state_ = state;
  reason_ = reason;
  evidence_ = evidence;
  return events;
}

void MemberHealth::sample(const CounterSnapshot& counters, std::uint64_t now_ns,
                          std::vector<HealthEvent>& events) {
  for (std::size_t i = 0; i < kSignalCount; ++i) {
    SignalState& signal = signals_[i];
    HealthEvent event;
    event.time_ns = now_ns;
    event.evidence.signal = static_cast<Signal>(i);
    event.evidence.since_ns = now_ns;
    if (!counters[i]) {
      if (signal.available || !signal.seen) {
        event.kind = EventKind::kSignalUnavailable;
        events.push_back(event);
      }
      signal.window.clear();
      signal.judge.reset();
      signal.available = false;
      signal.seen = true;
      continue;
    }
    if (signal.seen && !signal.available) {
      event.kind = EventKind::kSignalAvailable;
      events.push_back(event);
    }
    signal.available = signal.seen = true;
    signal.window.sample(now_ns, *counters[i]);
    if (!link_.up()) {
      signal.judge.restart_hold();
      continue;
    }
    if (!signal.judge.judge(signal.window, now_ns)) continue;
    const SignalSettings& settings = signal.judge.settings();
    event.kind = signal.judge.degraded() ? EventKind::kSignalDegraded : EventKind::kSignalRecovered;
    event.evidence.rate_ppm = signal.window.rate_ppm();
    event.evidence.threshold_ppm =
        signal.judge.degraded() ? settings.degrade_ppm : settings.recover_ppm;
    events.push_back(event);
  }
}

std::optional<Signal> MemberHealth::first_degraded() const {
  std::optional<Signal> first;
  std::uint64_t first_since = 0;
  for (std::size_t i = 0; i < kSignalCount; ++i) {
    const SignalState& signal = signals_[i];
    if (!signal.available || !signal.judge.degraded()) continue;
    if (!first || signal.judge.since_ns() < first_since) {
      first = static_cast<Signal>(i);
      first_since = signal.judge.since_ns();
    }
  }
  return first;
}

void MemberHealth::classify(std::uint64_t now_ns, State& state, Reason& reason,
                            Evidence& evidence) const {
  if (dampening_.suppressed(now_ns)) {
    state = State::kSuppressed;
    reason = Reason::kFlapSuppressed;
    evidence.penalty = dampening_.penalty(now_ns);
    evidence.until_ns = dampening_.reuse_at(now_ns);
  } else if (!link_.up()) {
    state = State::kDown;
    if (!inputs_.carrier) {
      reason = Reason::kCarrierDown;
    } else if (inputs_.bfd == BfdStatus::kDown) {
      reason = Reason::kBfdDown;
    } else {
      reason = Reason::kUpDelayPending;
      evidence.until_ns = link_.pending_until_ns().value_or(now_ns);
    }
  } else if (inputs_.pfc_storm) {
    state = State::kDown;
    reason = Reason::kPfcStorm;
  } else if (const std::optional<Signal> signal = first_degraded()) {
    const SignalState& judged = signals_[static_cast<std::size_t>(*signal)];
    state = State::kDegraded;
    reason = Reason::kErrorRate;
    evidence.signal = *signal;
    evidence.rate_ppm = judged.window.rate_ppm();
    evidence.threshold_ppm = judged.judge.settings().degrade_ppm;
  } else {
    state = State::kHealthy;
    reason = Reason::kNone;
  }
}

std::uint32_t MemberHealth::weight_permille() const {
  switch (state_) {
    case State::kHealthy:
      return 1000;
    case State::kDegraded:
      return std::min<std::uint32_t>(settings_.degraded_weight_permille, 1000);
    case State::kDown:
    case State::kSuppressed:
      break;
  }
  return 0;
}

std::optional<std::uint64_t> MemberHealth::next_deadline_ns() const {
  std::optional<std::uint64_t> next = link_.pending_until_ns();
  if (state_ == State::kSuppressed) {  // evidence_.until_ns: the reuse time
    next = next ? std::min(*next, evidence_.until_ns) : evidence_.until_ns;
  }
  return next;
}

HealthView MemberHealth::view(std::uint64_t now_ns) const {
  HealthView view;
  view.state = state_;
  view.reason = reason_;
  view.evidence = evidence_;
  view.weight_permille = weight_permille();
  view.last_inputs = inputs_;
  view.penalty = dampening_.penalty(now_ns);
  view.flaps = dampening_.flaps();
  view.link_pending_until_ns = link_.pending_until_ns();
  for (std::size_t i = 0; i < kSignalCount; ++i) {
    const SignalState& signal = signals_[i];
    view.signals[i] = {.signal = static_cast<Signal>(i),
                       .available = signal.available,
                       .judged = signal.judge.settings().judged,
                       .degraded = signal.judge.degraded(),
                       .rate_ppm = signal.window.rate_ppm(),
                       .errors = signal.window.errors(),
                       .frames = signal.window.frames(),
                       .since_ns = signal.judge.since_ns(),
                       .resets = signal.window.resets()};
  }
  return view;
}

}  // namespace braid::health
