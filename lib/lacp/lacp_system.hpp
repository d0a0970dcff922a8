// LacpSystem: the LACP engine of one bond. It owns the bond's member ports and runs every
// 802.1AX-2014 state machine for them. It is single-threaded and has no clock of its own: the
// control thread passes `now_ns` (a monotonic clock in ns) into every call.
//
// The bond drives it with:
//   on_link()   whenever a member's link state, speed or duplex changes;
//   on_frame()  for every Slow Protocols frame (ethertype 0x8809) received on a member;
//   tick()      from the control thread's timer, every 10-100 ms (or at next_deadline_ns());
//   set_*()     for admin changes at run time;
//   set_withdrawn() to take a member out of the partner's distribution and back (drains).
// Frames to send come out synchronously through the TxFunction given at construction, called
// from inside those calls (never re-enter the LacpSystem from it); it returns whether the port
// took the frame, and a LACPDU that was not taken is sent again (NTT stays set). After each call
// the bond reads collecting()/distributing() per port; generation() changes whenever any of
// those flags changed, so the bond republishes its distribution table only then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "common/bytes.hpp"
#include "lacp/config.hpp"
#include "lacp/event_log.hpp"
#include "lacp/marker.hpp"
#include "lacp/pdu.hpp"
#include "lacp/port.hpp"
#include "lacp/resume.hpp"
#include "lacp/selection.hpp"
#include "lacp/snapshot.hpp"

namespace braid::lacp {

class LacpSystem {
 public:
  // `port` is the index into the PortConfig vector (0-based), not the LACP port number.
  // True when the port took the frame.
  using TxFunction = std::function<bool(std::size_t port, ByteSpan frame)>;

  // Throws std::invalid_argument if a port number is 0 or repeated, or the system MAC is zero.
  LacpSystem(const SystemConfig& system, const std::vector<PortConfig>& ports, TxFunction tx,
             std::uint64_t now_ns = 0);

  std::size_t port_count() const { return ports_.size(); }

  void on_link(std::size_t port, bool up, std::uint32_t speed_mbps, bool full_duplex,
               std::uint64_t now_ns);
  // Any frame the bond classified as Slow Protocols; invalid ones are counted and dropped.
  void on_frame(std::size_t port, ByteSpan frame, std::uint64_t now_ns);
  void tick(std::uint64_t now_ns);
  // Frames of any kind arrived on the port (the bond reads the port's receive counter): proof
  // that something lives at the far end, which fallback needs (config.hpp).
  void on_neighbour_frames(std::size_t port, std::uint64_t now_ns);

  // The LACPDU to send as a port leaves service while its link stays up (admin down, braid
  // stopping: mlx5 and veth links stay up): the actor's Synchronization, Collecting and
  // Distributing cleared and a null partner (as a port sends that has let go of its partner), so
  // the partner stops sending to the port within one round trip instead of at its own timeout
  // (up to 90 s). nullopt when the partner
  // cannot believe we are in sync (our last actor state said neither of those bits). The bond
  // sends it before it disables the port, and reports goodbye_sent().
  std::optional<SlowFrame> goodbye_frame(std::size_t port) const;
  void goodbye_sent(std::size_t port, std::uint64_t now_ns);

  void set_timeout(std::size_t port, LacpTimeout timeout, std::uint64_t now_ns);
  void set_activity(std::size_t port, LacpActivity activity, std::uint64_t now_ns);
  // nullopt: derive the key from the link speed again.
  void set_key(std::size_t port, std::optional<std::uint16_t> key, std::uint64_t now_ns);

  // Withdrawal (withdrawal.hpp): asks the partner to stop sending to the port while the link
  // stays up and LACP runs on. The port goes STANDBY in its aggregator (6.4.14) and DETACHED
  // (6.4.15): collecting() and distributing() go false and a LACPDU saying out of sync goes out
  // inside this call. Cleared, the port is SELECTED again and attaches once the
  // wait_while_timer started at the withdrawal has run out. The flag survives link changes; the
  // same value twice is a no-op.
  void set_withdrawn(std::size_t port, bool withdrawn, std::uint64_t now_ns);
  bool withdrawn(std::size_t port) const { return ports_.at(port).withdrawal.active; }
  // While withdrawn: when the withdrawal began.
  std::optional<std::uint64_t> withdrawn_since_ns(std::size_t port) const;
  // While withdrawn: when the first LACPDU arrived whose actor state said the partner no longer
  // distributes to us (Synchronization or Distributing clear), the acknowledgement a drain waits
  // for. nullopt before that, and while not withdrawn. A port with no LACP partner (DEFAULTED,
  // fallback) never hears one: the bond needs a deadline of its own.
  std::optional<std::uint64_t> partner_released_ns(std::size_t port) const {
    return ports_.at(port).withdrawal.partner_released_ns;
  }

  // LACP-preserving restart (resume.hpp). resume_point(): what a new process needs to take the
  // port up again, nullopt unless it is in service (CURRENT, partner in sync, collecting and
  // distributing, not withdrawn). arm_resume(): apply `point` at the port's next link up (within
  // kResumeArmWindowNs), if it still matches the port then; resume_outcome() says what came of
  // it, resume_refusal() why it was refused. send_now(): a LACPDU at once (the partner's
  // current_while starts again: the most time for a restart).
  std::optional<ResumePoint> resume_point(std::size_t port) const;
  void arm_resume(std::size_t port, const ResumePoint& point, std::uint64_t now_ns);
  ResumeOutcome resume_outcome(std::size_t port) const { return ports_.at(port).resume_outcome; }
  const std::string& resume_refusal(std::size_t port) const {
    return ports_.at(port).resume_refusal;
  }
  std::optional<std::uint64_t> resumed_ns(std::size_t port) const;
  void send_now(std::size_t port, std::uint64_t now_ns);

  bool collecting(std::size_t port) const { return ports_.at(port).collecting; }
  bool distributing(std::size_t port) const { return ports_.at(port).distributing; }
  std::uint64_t generation() const { return generation_; }
  // Earliest time at which a timer runs out (kNever if none); tick() then.
  std::uint64_t next_deadline_ns() const;
  // The earliest periodic transmission and current_while expiry of any port (kNever if none),
  // for the protocol loop's lateness measurement.
  std::uint64_t next_periodic_ns() const;
  std::uint64_t next_expiry_ns() const;
  FallbackState fallback(std::size_t port) const { return ports_.at(port).fallback; }

  const PortCounters& counters(std::size_t port) const { return ports_.at(port).counters; }
  const EventLog& event_log() const { return log_; }
  SystemSnapshot snapshot() const;
  // For tests and the console; the machines' variables, read-only.
  const Port& port(std::size_t index) const { return ports_.at(index); }
  int active_aggregator() const { return selection_.active_aggregator(); }

 private:
  void run(std::uint64_t now_ns);
  void handle_lacpdu(std::size_t index, const Lacpdu& pdu, const MachineContext& context);
  void handle_marker(std::size_t index, const MarkerPdu& marker, std::uint64_t now_ns);
  void admin_changed(Port& port, bool key_may_change);
  void update_fallback(Port& port, const MachineContext& context);
  // Applies (or refuses) the port's armed resume point; its link has just come up.
  void resume(Port& port, const MachineContext& context);
  std::string resume_conflict(const Port& port, const ResumePoint& point) const;
  // An armed point past kResumeArmWindowNs is dropped (kExpired); true if it was.
  static bool drop_stale_resume(Port& port, std::uint64_t now_ns);
  bool send(std::size_t index, const SlowFrame& frame);

  SystemConfig system_;
  std::vector<Port> ports_;
  TxFunction tx_;
  EventLog log_;
  SelectionLogic selection_;
  std::vector<std::uint8_t> published_;  // collecting | distributing << 1, per port
  std::uint64_t generation_ = 0;
  std::uint64_t last_now_ns_ = 0;
};

}  // namespace braid::lacp
