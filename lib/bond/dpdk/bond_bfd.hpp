// A bond's BFD on the protocol loop (doc/health.md#bfd): one lib/bfd Session per member, RFC 7130
// micro-BFD or RFC 5881 single-hop (bonds[].bfd). Frames come from the workers' divert (the slow
// ring, bfd_divert.hpp) and leave through the bond's control TX queue (the `send` callback); a
// session's state becomes the member's health input (the `on_change` callback, which the bond
// turns into set_bfd_status and a log line). No DPDK: frames are byte spans, time is the
// protocol loop's monotonic now_ns.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bfd/frame.hpp"
#include "bfd/session.hpp"
#include "common/bytes.hpp"
#include "common/deadline_lag.hpp"
#include "config/bfd_config.hpp"
#include "health/member_health.hpp"

namespace braid::bond {

// One member's session as show bfd, telemetry and metrics read it.
struct BfdMemberView {
  std::string member;
  bool admin_down = false;
  bfd::State state = bfd::State::kDown;
  bfd::State remote_state = bfd::State::kDown;
  bfd::Diag diag = bfd::Diag::kNone;
  std::uint32_t local_discriminator = 0;
  std::uint32_t remote_discriminator = 0;
  std::uint64_t tx_interval_ns = 0;     // negotiated, before jitter (0: the peer wants none)
  std::uint64_t peer_interval_ns = 0;   // how often the peer sends, before jitter (0: unheard)
  std::uint64_t detection_time_ns = 0;  // 0: nothing heard since the last expiry
  std::uint64_t last_rx_ns = 0;         // the last Control packet the session took (0: none)
  std::uint64_t last_change_ns = 0;     // the last state change (0: none)
  std::uint64_t tx_failed = 0;          // packets the control TX queue refused
  health::BfdStatus status = health::BfdStatus::kDown;
  bfd::SessionCounters counters;
};

struct BondBfdCounters {
  std::uint64_t frames_in = 0;         // diverted frames that reached the protocol loop
  std::uint64_t frames_no_member = 0;  // ... from a port that is no member (dropped)
};

class BondBfd {
 public:
  using Send = std::function<bool(std::size_t member, ByteSpan frame)>;
  // A BFD deadline served (its kind, when it was due, when it was served): the protocol loop's
  // lateness (DeadlineLag).
  using NoteDeadline =
      std::function<void(DeadlineKind kind, std::uint64_t due_ns, std::uint64_t now_ns)>;
  using OnChange = std::function<void(std::size_t member, const bfd::StateChange& change,
                                      health::BfdStatus status)>;

  // `local_macs`: per member, the port's MAC (source of its frames, and what single-hop frames
  // must be addressed to); `first_discriminator`: member m's session is first + m (non-zero);
  // `peer_sources`: per member, where the source MAC of the packets its session takes is
  // published for the workers' policers (bfd_divert.hpp).
  BondBfd(const config::BfdConfig& config, std::vector<bfd::MacAddress> local_macs,
          std::uint32_t first_discriminator, Send send, OnChange on_change,
          std::atomic<std::uint64_t>* peer_sources);

  // A frame the workers diverted from `member` (member_count(): from no member).
  void on_frame(std::size_t member, ByteSpan frame, std::uint64_t now_ns);
  // Runs every session's timers and sends what is due; returns the next deadline.
  std::uint64_t poll(std::uint64_t now_ns);
  // Where each deadline poll() serves is noted (unset: nowhere).
  void on_deadline(NoteDeadline note) { note_deadline_ = std::move(note); }
  // RFC 5880 6.8.16 (console `set bfd`): AdminDown stops the session and takes BFD out of the
  // member's health (status not_configured) until it is up again.
  void set_admin_down(std::size_t member, bool down, std::uint64_t now_ns);

  std::size_t member_count() const { return members_.size(); }
  const config::BfdConfig& config() const { return config_; }
  BfdMemberView view(std::size_t member) const;
  health::BfdStatus status(std::size_t member) const;
  const BondBfdCounters& counters() const { return counters_; }

 private:
  struct Member {
    std::string name;
    bfd::FrameSpec spec;
    bfd::ReceiveFilter filter;
    std::unique_ptr<bfd::Session> session;
    std::uint64_t last_change_ns = 0;
    std::uint64_t tx_failed = 0;
  };

  config::BfdConfig config_;
  Send send_;
  OnChange on_change_;
  NoteDeadline note_deadline_;
  std::uint64_t last_poll_ns_ = 0;
  std::atomic<std::uint64_t>* peer_sources_;
  std::minstd_rand random_;
  std::vector<Member> members_;
  BondBfdCounters counters_;
};

// The member's health input for a session state: up when Up; not_configured while either end
// is AdminDown (RFC 5880 6.8.16: not a failure); down otherwise (Down, Init: not yet proven).
health::BfdStatus bfd_status(bfd::State local, bfd::State remote);

}  // namespace braid::bond
