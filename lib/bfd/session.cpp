#include "bfd/session.hpp"

#include <algorithm>
#include <utility>

namespace braid::bfd {

std::string check_session_config(const SessionConfig& config) {
  if (config.local_discriminator == 0) return "the local discriminator must not be 0";
  if (config.detect_mult == 0) return "detect_mult must be 1-255";
  if (config.desired_min_tx_us < kMinIntervalUs || config.required_min_rx_us < kMinIntervalUs) {
    return "desired_min_tx and required_min_rx must be at least " +
           std::to_string(kMinIntervalUs / 1000) + " ms";
  }
  return "";
}

Session::Session(const SessionConfig& config, RandomSource random)
    : config_(config),
      random_(std::move(random)),
      state_(config.admin_down ? State::kAdminDown : State::kDown),
      local_discr_(config.local_discriminator),
      local_diag_(config.admin_down ? Diag::kAdministrativelyDown : Diag::kNone),
      rx_in_use_us_(config.required_min_rx_us),
      advertised_rx_us_(config.required_min_rx_us) {
  tx_in_use_us_ = advertised_tx_us_ = desired_min_tx_us();
}

std::uint32_t Session::desired_min_tx_us() const {
  // 6.8.3: "When bfd.SessionState is not Up, the system MUST set bfd.DesiredMinTxInterval to a
  // value of not less than one second".
  return state_ == State::kUp ? config_.desired_min_tx_us
                              : std::max(config_.desired_min_tx_us, kSlowTxIntervalUs);
}

std::uint64_t Session::tx_interval_ns() const {
  // 6.8.7: remote Required Min RX 0 means the remote wants no periodic packets.
  if (remote_min_rx_us_ == 0) return 0;
  return std::uint64_t{std::max(tx_in_use_us_, remote_min_rx_us_)} * kNsPerUs;
}

std::uint64_t Session::peer_interval_ns() const {
  if (!heard_) return 0;
  return std::uint64_t{std::max(rx_in_use_us_, remote_desired_min_tx_us_)} * kNsPerUs;
}

std::uint64_t Session::detection_time_ns() const {
  return std::uint64_t{remote_detect_mult_} * peer_interval_ns();
}

std::uint64_t Session::jittered(std::uint64_t interval_ns) {
  // 6.8.7: reduced by a random 0-25 %; with bfd.DetectMult 1, to no more than 90 %.
  const std::uint32_t top = config_.detect_mult == 1 ? kJitterMaxPermilleMult1 : kJitterMaxPermille;
  const std::uint32_t permille = kJitterMinPermille + random_() % (top - kJitterMinPermille + 1);
  return interval_ns / 1000 * permille + interval_ns % 1000 * permille / 1000;
}

void Session::reschedule_tx() {
  // A shorter interval applies from the last packet sent, not from the one already scheduled
  // (which may be a slow-rate second away); a longer one from the next packet on.
  const std::uint64_t interval = tx_interval_ns();
  if (interval == 0) {
    next_tx_ns_ = kNever;
    return;
  }
  if (!sent_) {
    next_tx_ns_ = std::min<std::uint64_t>(next_tx_ns_, 0);
    return;
  }
  next_tx_ns_ = std::min(next_tx_ns_, last_tx_ns_ + jittered(interval));
}

void Session::change_state(State to, Diag diag, std::uint64_t now_ns) {
  const State from = state_;
  state_ = to;
  local_diag_ = diag;
  ++counters_.state_changes;
  if (from == State::kUp || to == State::kUp) timers_changed();
  if (on_state_change_) on_state_change_({now_ns, from, to, diag});
}

void Session::timers_changed() {
  const std::uint32_t tx = desired_min_tx_us();
  const std::uint32_t rx = config_.required_min_rx_us;
  if (tx == advertised_tx_us_ && rx == advertised_rx_us_) return;
  advertised_tx_us_ = tx;
  advertised_rx_us_ = rx;
  if (state_ != State::kUp) {
    // Outside Up nothing depends on the old values: use the new ones now, no Poll (a Poll that
    // was out is moot).
    poll_active_ = poll_again_ = false;
    tx_in_use_us_ = tx;
    rx_in_use_us_ = rx;
  } else {
    // 6.8.3: a faster TX and a longer Detection Time are safe at once; the rest waits for the
    // Final of the Poll Sequence that announces the change.
    tx_in_use_us_ = std::min(tx_in_use_us_, tx);
    rx_in_use_us_ = std::max(rx_in_use_us_, rx);
    if (poll_active_) {
      poll_again_ = true;  // 6.5: one Poll Sequence at a time
    } else {
      poll_active_ = true;
      ++counters_.polls_started;
    }
  }
  reschedule_tx();
}

void Session::finish_poll() {
  poll_active_ = false;
  ++counters_.polls_completed;
  tx_in_use_us_ = advertised_tx_us_;
  rx_in_use_us_ = advertised_rx_us_;
  if (poll_again_) {
    poll_again_ = false;
    poll_active_ = true;
    ++counters_.polls_started;
  }
  reschedule_tx();
}

void Session::count_rejected(RejectReason reason) {
  if (reason == RejectReason::kNone || reason >= RejectReason::kCount) return;
  ++counters_.rejected[static_cast<std::size_t>(reason)];
  ++counters_.rejected_total;
}

RejectReason Session::on_packet(const ControlPacket& packet, std::uint64_t now_ns) {
  // 6.8.6: a non-zero Your Discriminator selects the session; here the session is given (one per
  // member link), so it must be ours.
  if (packet.your_discriminator != 0 && packet.your_discriminator != local_discr_) {
    count_rejected(RejectReason::kYourDiscriminatorMismatch);
    return RejectReason::kYourDiscriminatorMismatch;
  }
  remote_discr_ = packet.my_discriminator;
  remote_state_ = packet.state;
  remote_detect_mult_ = packet.detect_mult;
  remote_desired_min_tx_us_ = packet.desired_min_tx_us;
  const bool remote_rx_changed = packet.required_min_rx_us != remote_min_rx_us_;
  remote_min_rx_us_ = packet.required_min_rx_us;
  // 6.8.4: every packet not discarded restarts the Detection Time.
  heard_ = true;
  last_rx_ns_ = now_ns;
  if (poll_active_ && packet.final) finish_poll();
  if (remote_rx_changed) {
    if (remote_min_rx_us_ != 0 && next_tx_ns_ == kNever) next_tx_ns_ = now_ns;
    reschedule_tx();
  }
  // 6.8.7: a Poll is answered with a Final at once, in any state.
  if (packet.poll && !final_due_) {
    final_due_ = true;
    final_due_since_ns_ = now_ns;
  }

  if (state_ == State::kAdminDown) {
    count_rejected(RejectReason::kLocalAdminDown);
    return RejectReason::kLocalAdminDown;
  }
  ++counters_.packets_in;
  if (packet.state == State::kAdminDown) {
    if (state_ != State::kDown)
      change_state(State::kDown, Diag::kNeighborSignaledSessionDown, now_ns);
  } else if (state_ == State::kDown) {
    if (packet.state == State::kDown) {
      change_state(State::kInit, Diag::kNone, now_ns);
    } else if (packet.state == State::kInit) {
      change_state(State::kUp, Diag::kNone, now_ns);
    }
  } else if (state_ == State::kInit) {
    if (packet.state == State::kInit || packet.state == State::kUp) {
      change_state(State::kUp, Diag::kNone, now_ns);
    }
  } else if (packet.state == State::kDown) {  // Up
    change_state(State::kDown, Diag::kNeighborSignaledSessionDown, now_ns);
  }
  return RejectReason::kNone;
}

ControlPacket Session::make_packet() const {
  ControlPacket packet;
  packet.diag = local_diag_;
  packet.state = state_;
  packet.poll = poll_active_;
  packet.control_plane_independent = config_.control_plane_independent;
  packet.detect_mult = config_.detect_mult;
  packet.my_discriminator = local_discr_;
  packet.your_discriminator = remote_discr_;
  packet.desired_min_tx_us = advertised_tx_us_;
  packet.required_min_rx_us = advertised_rx_us_;
  packet.required_min_echo_rx_us = 0;  // no Echo function
  return packet;
}

std::optional<ControlPacket> Session::poll(std::uint64_t now_ns) {
  // 6.8.4: the Detection Time ran out without a packet.
  if (heard_ && now_ns >= last_rx_ns_ + detection_time_ns()) {
    heard_ = false;
    ++counters_.detection_expirations;
    // 6.8.1: bfd.RemoteDiscr is zeroed when a Detection Time passes without a packet.
    remote_discr_ = 0;
    remote_state_ = State::kDown;
    if (state_ == State::kInit || state_ == State::kUp) {
      change_state(State::kDown, Diag::kControlDetectionTimeExpired, now_ns);
    }
  }
  if (final_due_) {
    // 6.8.7: "with the Poll (P) bit clear, and the Final (F) bit set", outside the periodic
    // schedule.
    final_due_ = false;
    ControlPacket packet = make_packet();
    packet.poll = false;
    packet.final = true;
    ++counters_.packets_out;
    ++counters_.finals_out;
    return packet;
  }
  if (now_ns < next_tx_ns_) return std::nullopt;
  const std::uint64_t interval = tx_interval_ns();
  if (interval == 0) {
    next_tx_ns_ = kNever;
    return std::nullopt;
  }
  sent_ = true;
  last_tx_ns_ = now_ns;
  next_tx_ns_ = now_ns + jittered(interval);
  ++counters_.packets_out;
  return make_packet();
}

std::uint64_t Session::next_deadline_ns() const {
  if (final_due_) return final_due_since_ns_;
  std::uint64_t deadline = next_tx_ns_;
  if (heard_) deadline = std::min(deadline, last_rx_ns_ + detection_time_ns());
  return deadline;
}

void Session::set_admin_down(bool down, std::uint64_t now_ns) {
  if (down == (state_ == State::kAdminDown)) return;
  config_.admin_down = down;
  if (down) {
    change_state(State::kAdminDown, Diag::kAdministrativelyDown, now_ns);
  } else {
    change_state(State::kDown, Diag::kNone, now_ns);
  }
}

void Session::set_timers(std::uint32_t desired_min_tx_us, std::uint32_t required_min_rx_us,
                         std::uint8_t detect_mult) {
  config_.desired_min_tx_us = desired_min_tx_us;
  config_.required_min_rx_us = required_min_rx_us;
  config_.detect_mult = detect_mult;  // travels in the next packet; no Poll needed (6.8.3)
  timers_changed();
}

}  // namespace braid::bfd
