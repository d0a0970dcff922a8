// One BFD session in Asynchronous mode (RFC 5880 6.2, 6.8.1-6.8.7, 6.8.16): the state machine
// Down -> Init -> Up and back, timer negotiation with Poll/Final sequences, the Detection Time
// and the jittered periodic transmission. Pure: packets in and out as ControlPacket structs (the
// caller owns frames, see frame.hpp), time as the injected monotonic `now_ns`, randomness from an
// injected source. Demand mode, the Echo function and authentication are not implemented: braid
// never sets D, advertises Required Min Echo RX 0, and the decoder refuses the A bit.
//
// Driving it: hand every decoded packet to on_packet(); call poll(now) at next_deadline_ns() (or
// later), and again until it returns nothing: each packet it returns is to be sent now.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "bfd/constants.hpp"
#include "bfd/control_packet.hpp"
#include "bfd/counters.hpp"
#include "bfd/types.hpp"

namespace braid::bfd {

struct SessionConfig {
  std::uint32_t local_discriminator = 0;  // bfd.LocalDiscr: non-zero, unique on this system
  std::uint32_t desired_min_tx_us = kDefaultDesiredMinTxUs;    // once Up (slow before, 6.8.3)
  std::uint32_t required_min_rx_us = kDefaultRequiredMinRxUs;  // what we can receive
  std::uint8_t detect_mult = kDefaultDetectMult;
  bool admin_down = false;
  // The C bit (RFC 5880 4.1): set only where BFD does not share fate with the control plane.
  bool control_plane_independent = false;
};

// Empty when `config` can run; otherwise what is wrong ("detect_mult must be 1-255", ...).
std::string check_session_config(const SessionConfig& config);

struct StateChange {
  std::uint64_t time_ns = 0;
  State from = State::kDown;
  State to = State::kDown;
  Diag diag = Diag::kNone;  // bfd.LocalDiag after the change: why
};

class Session {
 public:
  using RandomSource = std::function<std::uint32_t()>;
  using StateChangeHandler = std::function<void(const StateChange&)>;

  // `config` must pass check_session_config. The session starts Down (or AdminDown) and sends
  // its first packet at the first poll().
  Session(const SessionConfig& config, RandomSource random);

  // A packet decode_control_packet accepted. Returns kNone when the state machine took it, or
  // why the session discarded it (counted either way).
  RejectReason on_packet(const ControlPacket& packet, std::uint64_t now_ns);
  // Counts a frame or packet the parser refused on this session's link, so that one set of
  // counters tells everything that arrived.
  void count_rejected(RejectReason reason);

  // Runs the Detection Time and the transmit timer; returns the packet to send now, if any.
  std::optional<ControlPacket> poll(std::uint64_t now_ns);
  // When poll() next has something to do; at or before the last call's time when a Final is due.
  std::uint64_t next_deadline_ns() const;

  // 6.8.16: AdminDown stops the session (diag Administratively Down); leaving it goes to Down.
  void set_admin_down(bool down, std::uint64_t now_ns);
  // New timers; while Up, a Poll Sequence announces them (6.8.3).
  void set_timers(std::uint32_t desired_min_tx_us, std::uint32_t required_min_rx_us,
                  std::uint8_t detect_mult);

  void on_state_change(StateChangeHandler handler) { on_state_change_ = std::move(handler); }

  State state() const { return state_; }
  State remote_state() const { return remote_state_; }
  Diag local_diag() const { return local_diag_; }
  std::uint32_t local_discriminator() const { return local_discr_; }
  std::uint32_t remote_discriminator() const { return remote_discr_; }
  bool poll_active() const { return poll_active_; }
  // What we advertise as Desired Min TX: the configured value when Up, at least 1 s otherwise.
  std::uint32_t desired_min_tx_us() const;
  // The periodic interval before jitter: max(DesiredMinTx in use, RemoteMinRx) (6.8.2, 6.8.7);
  // 0 when the remote asked for no packets (Required Min RX 0).
  std::uint64_t tx_interval_ns() const;
  // The Detection Time (6.8.4): remote Detect Mult x max(RequiredMinRx in use, remote Desired Min
  // TX); 0 while nothing has been heard since the last expiry.
  std::uint64_t detection_time_ns() const;
  // How often the remote sends before its jitter: max(RequiredMinRx in use, remote Desired Min
  // TX) (6.8.7 from its side); 0 while nothing has been heard since the last expiry.
  std::uint64_t peer_interval_ns() const;
  // When the last packet not discarded arrived (0: none yet).
  std::uint64_t last_rx_ns() const { return last_rx_ns_; }
  const SessionCounters& counters() const { return counters_; }

 private:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  void change_state(State to, Diag diag, std::uint64_t now_ns);
  void timers_changed();
  void finish_poll();
  void reschedule_tx();
  std::uint64_t jittered(std::uint64_t interval_ns);
  ControlPacket make_packet() const;

  SessionConfig config_;
  RandomSource random_;
  StateChangeHandler on_state_change_;
  SessionCounters counters_;

  // RFC 5880 6.8.1 state variables.
  State state_ = State::kDown;
  State remote_state_ = State::kDown;
  std::uint32_t local_discr_ = 0;
  std::uint32_t remote_discr_ = 0;
  Diag local_diag_ = Diag::kNone;
  std::uint32_t remote_min_rx_us_ = kInitialRemoteMinRxUs;
  std::uint32_t remote_desired_min_tx_us_ = 0;
  std::uint8_t remote_detect_mult_ = 0;
  // What the timers use while a Poll Sequence is out (6.8.3): an increased Desired Min TX waits
  // for the Final before it slows us down, a reduced Required Min RX before it shortens the
  // Detection Time.
  std::uint32_t tx_in_use_us_ = kSlowTxIntervalUs;
  std::uint32_t rx_in_use_us_ = 0;
  std::uint32_t advertised_tx_us_ = kSlowTxIntervalUs;
  std::uint32_t advertised_rx_us_ = 0;
  bool poll_active_ = false;
  bool poll_again_ = false;  // timers changed while a Poll was out: poll again after its Final
  bool final_due_ = false;   // the peer polled: send F at once (6.8.7)

  bool heard_ = false;  // a packet arrived since the last Detection Time expiry
  std::uint64_t last_rx_ns_ = 0;
  std::uint64_t final_due_since_ns_ = 0;
  bool sent_ = false;
  std::uint64_t last_tx_ns_ = 0;
  std::uint64_t next_tx_ns_ = 0;
};

}  // namespace braid::bfd
