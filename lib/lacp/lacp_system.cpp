#include "lacp/lacp_system.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "lacp/frame.hpp"
#include "lacp/machines.hpp"

namespace braid::lacp {
namespace {

// The machines are evaluated until none moves; more passes than this means a bug, not a need.
constexpr int kMaxPasses = 32;

void validate(const SystemConfig& system, const std::vector<PortConfig>& ports) {
  if (system.system_mac == MacAddress{}) {
    throw std::invalid_argument("lacp: system MAC is 00:00:00:00:00:00; set a unicast MAC");
  }
  std::set<std::uint16_t> seen;
  for (std::size_t index = 0; index < ports.size(); ++index) {
    const std::uint16_t number = ports[index].port_number;
    if (number == 0) {
      throw std::invalid_argument("lacp: port " + std::to_string(index) +
                                  " has port number 0; LACP port numbers start at 1");
    }
    if (!seen.insert(number).second) {
      throw std::invalid_argument("lacp: port number " + std::to_string(number) +
                                  " is used twice; give each member a distinct number");
    }
  }
}

}  // namespace

LacpSystem::LacpSystem(const SystemConfig& system, const std::vector<PortConfig>& ports,
                       TxFunction tx, std::uint64_t now_ns)
    : system_(system), tx_(std::move(tx)), log_(system.event_log_capacity) {
  validate(system, ports);
  last_now_ns_ = now_ns;
  const MachineContext context{now_ns, log_};
  ports_.reserve(ports.size());
  for (const PortConfig& config : ports) {
    Port& port = ports_.emplace_back(config, system_);
    receive_begin(port, context);
    mux_begin(port, context);
    churn_begin(port, context);
  }
  published_.assign(ports_.size(), 0);
  run(now_ns);
}

void LacpSystem::on_link(std::size_t index, bool up, std::uint32_t speed_mbps, bool full_duplex,
                         std::uint64_t now_ns) {
  Port& port = ports_.at(index);
  port.port_enabled = up;
  port.lacp_enabled = up && full_duplex;  // LACP runs on full-duplex links only (6.4.8)
  if (up) {
    port.speed_mbps = speed_mbps;
    port.full_duplex = full_duplex;
  }
  admin_changed(port, true);
  if (up && port.resume) {
    const MachineContext context{now_ns, log_};
    resume(port, context);
  }
  run(now_ns);
}

std::optional<ResumePoint> LacpSystem::resume_point(std::size_t index) const {
  const Port& port = ports_.at(index);
  if (!port.port_enabled || port.rx_state != RxState::kCurrent || !port.collecting ||
      !port.distributing || port.withdrawal.active || port.aggregator == kNoAggregator ||
      !has_bit(port.partner.state, state_bit::kSynchronization)) {
    return std::nullopt;
  }
  return ResumePoint{port.actor, port.partner, port.aggregator};
}

void LacpSystem::arm_resume(std::size_t index, const ResumePoint& point, std::uint64_t now_ns) {
  Port& port = ports_.at(index);
  port.resume = point;
  port.resume_armed_ns = now_ns;
  port.resume_outcome = ResumeOutcome::kArmed;
  port.resume_refusal.clear();
  if (port.port_enabled) {  // already up: apply it now
    const MachineContext context{now_ns, log_};
    resume(port, context);
    run(now_ns);
  }
}

std::optional<std::uint64_t> LacpSystem::resumed_ns(std::size_t index) const {
  const Port& port = ports_.at(index);
  if (port.resume_outcome != ResumeOutcome::kResumed) return std::nullopt;
  return port.resumed_ns;
}

void LacpSystem::send_now(std::size_t index, std::uint64_t now_ns) {
  ports_.at(index).ntt = true;
  run(now_ns);
}

bool LacpSystem::drop_stale_resume(Port& port, std::uint64_t now_ns) {
  if (!port.resume || now_ns - port.resume_armed_ns <= kResumeArmWindowNs) return false;
  port.resume.reset();
  port.resume_outcome = ResumeOutcome::kExpired;
  return true;
}

// Another port already holds the saved aggregator for a different aggregation (it selected
// before this port's link came up): the saved point cannot be taken up as it was.
std::string LacpSystem::resume_conflict(const Port& port, const ResumePoint& point) const {
  if (point.aggregator >= static_cast<int>(ports_.size()))
    return "aggregator " + std::to_string(point.aggregator) + " does not exist";
  for (const Port& other : ports_) {
    if (&other == &port || other.aggregator != point.aggregator) continue;
    if (other.actor.key != point.actor.key || other.partner.system != point.partner.system ||
        other.partner.system_priority != point.partner.system_priority ||
        other.partner.key != point.partner.key)
      return "aggregator " + std::to_string(point.aggregator) + " is in use for another partner";
  }
  return "";
}

void LacpSystem::resume(Port& port, const MachineContext& context) {
  if (drop_stale_resume(port, context.now_ns)) return;
  const ResumePoint point = *port.resume;
  port.resume.reset();
  std::string why;
  if (!port.lacp_enabled) why = "the link is not full duplex";
  if (why.empty()) why = resume_mismatch(point, port.actor);
  if (why.empty()) why = resume_conflict(port, point);
  if (!why.empty()) {
    port.resume_outcome = ResumeOutcome::kRefused;
    port.resume_refusal = why;
    context.transition(port, Machine::kSystem, "resume armed", "resume refused");
    return;
  }
  // Receive machine: CURRENT with the partner as last recorded (recordPDU's result), the
  // current_while timer started as on a LACPDU's arrival.
  context.transition(port, Machine::kReceive, to_string(port.rx_state), "CURRENT (resumed)");
  port.rx_state = RxState::kCurrent;
  port.partner = point.partner;
  port.current_while_timer.start(context.now_ns, has_bit(port.actor.state, state_bit::kTimeout)
                                                     ? kShortTimeoutTime
                                                     : kLongTimeoutTime);
  set_bit(port.actor.state, state_bit::kDefaulted, false);
  set_bit(port.actor.state, state_bit::kExpired, false);
  // Selection and Mux: attached to the saved aggregator, in sync, collecting and distributing,
  // with no aggregate wait: the partner never stopped.
  port.selected = Selected::kSelected;
  port.just_selected = false;
  port.aggregator = point.aggregator;
  const MuxState in_service = port.config.mux_mode == MuxMode::kCoupled
                                  ? MuxState::kCollectingDistributing
                                  : MuxState::kDistributing;
  context.transition(port, Machine::kMux, to_string(port.mux_state), to_string(in_service));
  port.mux_state = in_service;
  port.wait_while_timer.stop();
  port.attached = true;
  port.collecting = true;
  port.distributing = true;
  set_bit(port.actor.state, state_bit::kSynchronization, true);
  set_bit(port.actor.state, state_bit::kCollecting, true);
  set_bit(port.actor.state, state_bit::kDistributing, true);
  port.ntt = true;  // tells the partner at once that nothing changed
  port.resume_outcome = ResumeOutcome::kResumed;
  port.resumed_ns = context.now_ns;
  ++port.counters.resumed;
}

namespace {

// A Slow Protocols frame of subtype LACP, however malformed: what fallback must not ignore.
bool looks_like_lacpdu(ByteSpan frame) {
  if (frame.size() <= kEthernetHeaderLen + kPduSubtypeOffset) return false;
  const unsigned ethertype = (unsigned{frame[12]} << 8) | frame[13];
  return ethertype == kSlowProtocolsEthertype &&
         frame[kEthernetHeaderLen + kPduSubtypeOffset] == kLacpSubtype;
}

}  // namespace

void LacpSystem::on_frame(std::size_t index, ByteSpan frame, std::uint64_t now_ns) {
  Port& port = ports_.at(index);
  port.neighbour_seen_ns = now_ns;
  if (looks_like_lacpdu(frame)) port.lacpdu_heard_ns = now_ns;
  const DecodedFrame decoded = decode_slow_frame(frame);
  DecodeError error = decoded.error;
  if (decoded.kind == FrameKind::kLacpdu && decoded.lacpdu.actor.system == system_.system_mac) {
    error = DecodeError::kLoopback;  // our own LACPDU came back: never aggregate with ourselves
  }
  if (error != DecodeError::kNone) {
    ++port.counters.bad_pdu[static_cast<std::size_t>(error)];
    ++port.counters.bad_pdu_total;
    run(now_ns);  // a LACPDU of any kind blocks fallback at once
    return;
  }
  if (decoded.kind == FrameKind::kMarker) {
    handle_marker(index, decoded.marker, now_ns);
    return;
  }
  const MachineContext context{now_ns, log_};
  handle_lacpdu(index, decoded.lacpdu, context);
  run(now_ns);
}

void LacpSystem::handle_lacpdu(std::size_t index, const Lacpdu& pdu,
                               const MachineContext& context) {
  Port& port = ports_[index];
  ++port.counters.lacpdu_rx;
  // port_moved (6.4.8): the partner port this disabled port last heard from now talks to
  // another of our ports, so the disabled port's record of it is stale.
  for (Port& other : ports_) {
    if (&other != &port && other.rx_state == RxState::kPortDisabled &&
        other.partner.system == pdu.actor.system &&
        other.partner.port_number == pdu.actor.port_number) {
      other.port_moved = true;
    }
  }
  if (!receive_lacpdu(port, pdu, context)) {
    ++port.counters.lacpdu_rx_ignored;
    return;
  }
  const char* before = port.withdrawal.state_name();
  if (port.withdrawal.heard(pdu.actor.state, context.now_ns)) {
    context.transition(port, Machine::kWithdrawal, before, port.withdrawal.state_name());
  }
}

void LacpSystem::handle_marker(std::size_t index, const MarkerPdu& marker, std::uint64_t now_ns) {
  Port& port = ports_[index];
  if (marker.kind == MarkerKind::kResponse) {
    ++port.counters.marker_response_rx;
    return;
  }
  ++port.counters.marker_rx;
  if (!port.port_enabled) return;
  if (now_ns - port.marker_window_start_ns >= kNsPerSecond ||
      now_ns < port.marker_window_start_ns) {
    port.marker_window_start_ns = now_ns;
    port.marker_responses_in_window = 0;
  }
  if (port.marker_responses_in_window >= kMaxMarkerResponsesPerSecond) {
    ++port.counters.marker_response_suppressed;
    return;
  }
  ++port.marker_responses_in_window;
  if (send(index, encode_marker(port.config.port_mac, marker_response_for(marker)))) {
    ++port.counters.marker_response_tx;
  } else {
    ++port.counters.marker_response_tx_failed;
  }
}

void LacpSystem::tick(std::uint64_t now_ns) {
  run(now_ns);
}

void LacpSystem::on_neighbour_frames(std::size_t index, std::uint64_t now_ns) {
  Port& port = ports_.at(index);
  port.neighbour_seen_ns = now_ns;
  if (port.config.fallback) run(now_ns);
}

std::optional<SlowFrame> LacpSystem::goodbye_frame(std::size_t index) const {
  const Port& port = ports_.at(index);
  constexpr std::uint8_t kInService =
      state_bit::kSynchronization | state_bit::kCollecting | state_bit::kDistributing;
  if (!port.lacp_enabled || (port.actor.state & kInService) == 0) return std::nullopt;
  // What a port sends once it has let go of its partner (recordDefault, 6.4.9): out of sync,
  // Defaulted, and a null partner. A partner that follows 802.1AX leaves Collecting and
  // Distributing on our Synchronization bit alone; DPDK's net_bonding ignores that bit and
  // declares us in sync whenever the PDU's partner fields echo its own actor, so those must not.
  Lacpdu pdu;
  pdu.actor = port.actor;
  pdu.actor.state =
      static_cast<std::uint8_t>((pdu.actor.state & ~kInService) | state_bit::kDefaulted);
  pdu.partner = PortInfo{};
  pdu.partner.state = state_bit::kTimeout;
  pdu.collector_max_delay = system_.collector_max_delay;
  return encode_lacpdu(port.config.port_mac, pdu);
}

void LacpSystem::goodbye_sent(std::size_t index, std::uint64_t now_ns) {
  Port& port = ports_.at(index);
  ++port.counters.goodbye_tx;
  // It counts against the 3-per-second limit like any LACPDU (6.4.16).
  port.tx_times_ns[port.tx_count % kMaxTxPerFastPeriodic] = now_ns;
  ++port.tx_count;
}

void LacpSystem::set_timeout(std::size_t index, LacpTimeout timeout, std::uint64_t now_ns) {
  ports_.at(index).config.timeout = timeout;
  admin_changed(ports_[index], false);
  run(now_ns);
}

void LacpSystem::set_activity(std::size_t index, LacpActivity activity, std::uint64_t now_ns) {
  ports_.at(index).config.activity = activity;
  admin_changed(ports_[index], false);
  run(now_ns);
}

void LacpSystem::set_key(std::size_t index, std::optional<std::uint16_t> key,
                         std::uint64_t now_ns) {
  ports_.at(index).config.key = key;
  admin_changed(ports_[index], true);
  run(now_ns);
}

void LacpSystem::set_withdrawn(std::size_t index, bool withdrawn, std::uint64_t now_ns) {
  Port& port = ports_.at(index);
  if (port.withdrawal.active == withdrawn) return;
  const char* before = port.withdrawal.state_name();
  if (withdrawn) {
    port.withdrawal.begin(now_ns);
  } else {
    port.withdrawal.end();
  }
  const MachineContext context{now_ns, log_};
  context.transition(port, Machine::kWithdrawal, before, port.withdrawal.state_name());
  run(now_ns);  // Selection, then the Mux machine and its NTT (6.4.14, 6.4.15)
}

std::optional<std::uint64_t> LacpSystem::withdrawn_since_ns(std::size_t index) const {
  const Withdrawal& withdrawal = ports_.at(index).withdrawal;
  if (!withdrawal.active) return std::nullopt;
  return withdrawal.since_ns;
}

void LacpSystem::admin_changed(Port& port, bool key_may_change) {
  const std::uint16_t old_key = port.actor.key;
  if (!port.refresh_actor_admin()) return;
  port.ntt = true;  // the partner must learn the new values (6.4.16)
  if (key_may_change && port.actor.key != old_key) {
    port.selected = Selected::kUnselected;  // a new key is a new LAG ID: select again
  }
}

bool LacpSystem::send(std::size_t index, const SlowFrame& frame) {
  return tx_ ? tx_(index, ByteSpan(frame)) : true;
}

// Fallback follows its evidence in both directions: a LACPDU, or a far end gone quiet, takes a
// port that fell back out of service at once.
void LacpSystem::update_fallback(Port& port, const MachineContext& context) {
  if (!port.config.fallback) return;
  const FallbackState block = port.fallback_block(context.now_ns);
  const bool allowed = block == FallbackState::kArmed;
  if (allowed != has_bit(port.partner_admin.state, state_bit::kSynchronization)) {
    port.set_fallback_partner(allowed);
    // A defaulted port's partner is the admin partner (recordDefault, 6.4.9).
    if (port.rx_state == RxState::kDefaulted) port.partner = port.partner_admin;
  }
  const FallbackState now =
      allowed && port.rx_state == RxState::kDefaulted ? FallbackState::kEngaged : block;
  if (now != port.fallback) {
    context.transition(port, Machine::kFallback, to_string(port.fallback), to_string(now));
    port.fallback = now;
  }
}

void LacpSystem::run(std::uint64_t now_ns) {
  last_now_ns_ = now_ns;
  const MachineContext context{now_ns, log_};
  for (Port& port : ports_)
    drop_stale_resume(port, now_ns);
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    for (Port& port : ports_)
      update_fallback(port, context);
    bool moved = false;
    for (Port& port : ports_)
      moved = receive_step(port, context) || moved;
    moved = selection_.step(ports_, system_, context) || moved;
    for (Port& port : ports_) {
      moved = mux_step(port, selection_.ready(ports_, port.aggregator, now_ns), context) || moved;
    }
    for (Port& port : ports_)
      moved = periodic_step(port, context) || moved;
    for (Port& port : ports_)
      moved = churn_step(port, context) || moved;
    if (!moved) break;
  }
  for (std::size_t index = 0; index < ports_.size(); ++index) {
    Port& port = ports_[index];
    if (auto pdu = transmit_step(port, system_.collector_max_delay, context)) {
      transmit_done(port, send(index, encode_lacpdu(port.config.port_mac, *pdu)), context);
    }
  }
  bool changed = false;
  for (std::size_t index = 0; index < ports_.size(); ++index) {
    const auto flags = static_cast<std::uint8_t>((ports_[index].collecting ? 1 : 0) |
                                                 (ports_[index].distributing ? 2 : 0));
    changed = changed || flags != published_[index];
    published_[index] = flags;
  }
  if (changed) ++generation_;
}

std::uint64_t LacpSystem::next_deadline_ns() const {
  std::uint64_t deadline = kNever;
  auto consider = [&](const Timer& timer) {
    if (timer.running() && timer.deadline_ns > last_now_ns_) {
      deadline = std::min(deadline, timer.deadline_ns);
    }
  };
  for (const Port& port : ports_) {
    if (port.rx_state == RxState::kExpired || port.rx_state == RxState::kCurrent) {
      consider(port.current_while_timer);
    }
    if (port.periodic_state != PeriodicState::kNoPeriodic) consider(port.periodic_timer);
    if (port.mux_state == MuxState::kWaiting) consider(port.wait_while_timer);
    if (port.port_enabled && port.actor_churn_state == ChurnState::kChurnMonitor) {
      consider(port.actor_churn_timer);
    }
    if (port.port_enabled && port.partner_churn_state == ChurnState::kChurnMonitor) {
      consider(port.partner_churn_timer);
    }
    const std::uint64_t tx = transmit_deadline(port);
    if (tx != kNever && tx > last_now_ns_) deadline = std::min(deadline, tx);
    // When fallback's evidence runs out: the LACPDU heard ages past the long timeout, or the far
    // end's frames past the neighbour window.
    if (port.config.fallback) {
      if (port.lacpdu_heard_ns != 0 && port.lacpdu_heard_ns + kLongTimeoutTime > last_now_ns_)
        deadline = std::min(deadline, port.lacpdu_heard_ns + kLongTimeoutTime);
      if (port.neighbour_seen_ns != 0 &&
          port.neighbour_seen_ns + kFallbackNeighbourWindow > last_now_ns_)
        deadline = std::min(deadline, port.neighbour_seen_ns + kFallbackNeighbourWindow);
    }
  }
  return deadline;
}

std::uint64_t LacpSystem::next_periodic_ns() const {
  std::uint64_t deadline = kNever;
  for (const Port& port : ports_) {
    if (port.periodic_state != PeriodicState::kNoPeriodic && port.periodic_timer.running())
      deadline = std::min(deadline, port.periodic_timer.deadline_ns);
  }
  return deadline;
}

std::uint64_t LacpSystem::next_expiry_ns() const {
  std::uint64_t deadline = kNever;
  for (const Port& port : ports_) {
    if ((port.rx_state == RxState::kExpired || port.rx_state == RxState::kCurrent) &&
        port.current_while_timer.running())
      deadline = std::min(deadline, port.current_while_timer.deadline_ns);
  }
  return deadline;
}

SystemSnapshot LacpSystem::snapshot() const {
  SystemSnapshot out;
  out.system_priority = system_.system_priority;
  out.system_mac = system_.system_mac;
  out.active_aggregator = selection_.active_aggregator();
  out.generation = generation_;
  for (const Port& port : ports_) {
    PortSnapshot snap;
    snap.port_number = port.config.port_number;
    snap.port_mac = port.config.port_mac;
    snap.link_up = port.port_enabled;
    snap.full_duplex = port.full_duplex;
    snap.speed_mbps = port.speed_mbps;
    snap.actor = port.actor;
    snap.partner = port.partner;
    snap.actor_state = decode_state(port.actor.state);
    snap.partner_state = decode_state(port.partner.state);
    snap.receive_state = to_string(port.rx_state);
    snap.periodic_state = to_string(port.periodic_state);
    snap.mux_state = to_string(port.mux_state);
    snap.selected = to_string(port.selected);
    snap.actor_churn_state = to_string(port.actor_churn_state, false);
    snap.partner_churn_state = to_string(port.partner_churn_state, true);
    snap.aggregator = port.aggregator;
    snap.collecting = port.collecting;
    snap.distributing = port.distributing;
    snap.actor_churn = port.actor_churn;
    snap.partner_churn = port.partner_churn;
    snap.fallback = to_string(port.fallback);
    snap.lacpdu_heard_ns = port.lacpdu_heard_ns;
    snap.withdrawn = port.withdrawal.active;
    snap.partner_released_ns = port.withdrawal.partner_released_ns;
    snap.resume_outcome = to_string(port.resume_outcome);
    if (port.resume_outcome == ResumeOutcome::kResumed) snap.resumed_ns = port.resumed_ns;
    snap.counters = port.counters;
    out.ports.push_back(snap);
  }
  return out;
}

}  // namespace braid::lacp
