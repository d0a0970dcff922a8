// The RFC 5880 state machine, one session against a scripted peer: the transitions of 6.8.6,
// the timers of 6.8.3/6.8.4/6.8.7, Poll/Final (6.5) and AdminDown (6.8.16).
#include "bfd/session.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace braid::bfd {
namespace {

constexpr std::uint32_t kLocal = 0x0a0a0a0a;
constexpr std::uint32_t kRemote = 0x0b0b0b0b;
constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint32_t kFastUs = 10'000;

// 10 ms x 3 (the default multiplier).
SessionConfig fast_config() {
  return {
      .local_discriminator = kLocal, .desired_min_tx_us = kFastUs, .required_min_rx_us = kFastUs};
}

// 75 % + value / 1000 of the interval: random() % 251 is the per-mille above 75 %.
Session::RandomSource constant(std::uint32_t value) {
  return [value] { return value; };
}

struct Harness {
  explicit Harness(const SessionConfig& config = fast_config(),
                   Session::RandomSource random = constant(250))
      : session(config, std::move(random)) {
    session.on_state_change([this](const StateChange& change) { changes.push_back(change); });
  }

  // Runs every deadline up to `until`, collecting what the session sends.
  void run_until(std::uint64_t until) {
    while (true) {
      const std::uint64_t deadline = session.next_deadline_ns();
      if (deadline > until) break;
      now = std::max(now, deadline);
      drain();
    }
    now = until;
    drain();
  }
  void drain() {
    while (auto packet = session.poll(now))
      sent.push_back({now, *packet});
  }
  RejectReason receive(const ControlPacket& packet) {
    const RejectReason reason = session.on_packet(packet, now);
    drain();
    return reason;
  }
  // The peer's packet: its state, addressed to us once it knows us (not in Down).
  ControlPacket peer(State state, std::uint32_t desired_min_tx_us = kFastUs) const {
    ControlPacket packet;
    packet.state = state;
    packet.detect_mult = 3;
    packet.my_discriminator = kRemote;
    packet.your_discriminator = state == State::kDown ? 0 : kLocal;
    packet.desired_min_tx_us = desired_min_tx_us;
    packet.required_min_rx_us = kFastUs;
    return packet;
  }
  // Down -> Init -> Up, the peer answering our Poll with a Final.
  void bring_up() {
    receive(peer(State::kDown, kSlowTxIntervalUs));
    ASSERT_EQ(session.state(), State::kInit);
    receive(peer(State::kUp, kSlowTxIntervalUs));
    ASSERT_EQ(session.state(), State::kUp);
    ControlPacket final = peer(State::kUp);
    final.final = true;
    receive(final);
    ASSERT_FALSE(session.poll_active());
  }
  const ControlPacket& last() const { return sent.back().packet; }

  struct Sent {
    std::uint64_t time_ns;
    ControlPacket packet;
  };
  Session session;
  std::uint64_t now = 0;
  std::vector<Sent> sent;
  std::vector<StateChange> changes;
};

TEST(BfdSession, StartsDownSendingSlowDownPackets) {
  Harness h;
  h.run_until(0);
  ASSERT_EQ(h.sent.size(), 1u);
  const ControlPacket& first = h.last();
  EXPECT_EQ(first.state, State::kDown);
  EXPECT_EQ(first.my_discriminator, kLocal);
  EXPECT_EQ(first.your_discriminator, 0u);
  EXPECT_EQ(first.detect_mult, 3);
  // 6.8.3: at least 1 s while not Up, whatever the configuration; our receive rate as configured.
  EXPECT_EQ(first.desired_min_tx_us, kSlowTxIntervalUs);
  EXPECT_EQ(first.required_min_rx_us, kFastUs);
  EXPECT_EQ(first.required_min_echo_rx_us, 0u);
  EXPECT_FALSE(first.poll || first.final || first.demand || first.auth_present);
  EXPECT_EQ(h.session.next_deadline_ns(), 1000 * kMs);
}

TEST(BfdSession, SlowRateUntilUp) {
  Harness h;
  h.run_until(10'000 * kMs);
  EXPECT_EQ(h.sent.size(), 11u);  // t = 0, 1, ..., 10 s at 100 % of 1 s
  for (std::size_t i = 1; i < h.sent.size(); ++i)
    EXPECT_EQ(h.sent[i].time_ns - h.sent[i - 1].time_ns, 1000 * kMs);
  // Init is not Up either.
  h.receive(h.peer(State::kDown, kSlowTxIntervalUs));
  ASSERT_EQ(h.session.state(), State::kInit);
  const std::size_t before = h.sent.size();
  h.run_until(h.now + 2000 * kMs);
  EXPECT_EQ(h.sent.size() - before, 2u);
  EXPECT_EQ(h.last().desired_min_tx_us, kSlowTxIntervalUs);
}

TEST(BfdSession, JitterStaysWithin75And100Percent) {
  std::uint32_t next = 0;
  Harness h(fast_config(), [&next] { return next++; });
  h.run_until(400'000 * kMs);  // every one of the 251 jitter steps
  std::uint64_t shortest = ~0ull;
  std::uint64_t longest = 0;
  for (std::size_t i = 1; i < h.sent.size(); ++i) {
    const std::uint64_t gap = h.sent[i].time_ns - h.sent[i - 1].time_ns;
    shortest = std::min(shortest, gap);
    longest = std::max(longest, gap);
  }
  EXPECT_EQ(shortest, 750 * kMs);
  EXPECT_EQ(longest, 1000 * kMs);
}

TEST(BfdSession, JitterIsAtMost90PercentWithDetectMultOne) {
  SessionConfig config = fast_config();
  config.detect_mult = 1;
  std::uint32_t next = 0;
  Harness h(config, [&next] { return next++; });
  h.run_until(400'000 * kMs);
  std::uint64_t longest = 0;
  for (std::size_t i = 1; i < h.sent.size(); ++i)
    longest = std::max(longest, h.sent[i].time_ns - h.sent[i - 1].time_ns);
  EXPECT_EQ(longest, 900 * kMs);
}

TEST(BfdSession, ThreeWayHandshake) {
  Harness h;
  h.run_until(0);
  // Down + Down -> Init; our packets now name the peer.
  EXPECT_EQ(h.receive(h.peer(State::kDown, kSlowTxIntervalUs)), RejectReason::kNone);
  EXPECT_EQ(h.session.state(), State::kInit);
  EXPECT_EQ(h.session.remote_discriminator(), kRemote);
  h.run_until(1000 * kMs);
  EXPECT_EQ(h.last().state, State::kInit);
  EXPECT_EQ(h.last().your_discriminator, kRemote);
  // Init + Up -> Up.
  h.receive(h.peer(State::kUp, kSlowTxIntervalUs));
  EXPECT_EQ(h.session.state(), State::kUp);
  ASSERT_EQ(h.changes.size(), 2u);
  EXPECT_EQ(h.changes[0].from, State::kDown);
  EXPECT_EQ(h.changes[0].to, State::kInit);
  EXPECT_EQ(h.changes[1].to, State::kUp);
  EXPECT_EQ(h.changes[1].time_ns, 1000 * kMs);
  EXPECT_EQ(h.session.counters().state_changes, 2u);
}

// RFC 5880 6.8.6: the state a received State field moves us to, from each of ours.
TEST(BfdSession, TransitionTableOfRfc5880) {
  struct Row {
    State from;
    State received;
    State to;
    Diag diag;
  };
  const std::vector<Row> rows = {
      {State::kDown, State::kAdminDown, State::kDown, Diag::kNone},
      {State::kDown, State::kDown, State::kInit, Diag::kNone},
      {State::kDown, State::kInit, State::kUp, Diag::kNone},
      {State::kDown, State::kUp, State::kDown, Diag::kNone},
      {State::kInit, State::kAdminDown, State::kDown, Diag::kNeighborSignaledSessionDown},
      {State::kInit, State::kDown, State::kInit, Diag::kNone},
      {State::kInit, State::kInit, State::kUp, Diag::kNone},
      {State::kInit, State::kUp, State::kUp, Diag::kNone},
      {State::kUp, State::kAdminDown, State::kDown, Diag::kNeighborSignaledSessionDown},
      {State::kUp, State::kDown, State::kDown, Diag::kNeighborSignaledSessionDown},
      {State::kUp, State::kInit, State::kUp, Diag::kNone},
      {State::kUp, State::kUp, State::kUp, Diag::kNone},
  };
  for (const Row& row : rows) {
    Harness h;
    if (row.from != State::kDown) h.receive(h.peer(State::kDown));
    if (row.from == State::kUp) h.receive(h.peer(State::kInit));
    ASSERT_EQ(h.session.state(), row.from);
    ControlPacket packet = h.peer(row.received);
    packet.your_discriminator = kLocal;
    EXPECT_EQ(h.receive(packet), RejectReason::kNone);
    EXPECT_EQ(h.session.state(), row.to) << to_string(row.from) << " + " << to_string(row.received);
    EXPECT_EQ(h.session.local_diag(), row.diag)
        << to_string(row.from) << " + " << to_string(row.received);
  }
}

TEST(BfdSession, UpPollsForTheFastRateAndSendsAtIt) {
  Harness h;
  h.run_until(0);
  h.receive(h.peer(State::kDown, kSlowTxIntervalUs));
  h.run_until(500 * kMs);
  h.receive(h.peer(State::kUp, kSlowTxIntervalUs));
  ASSERT_EQ(h.session.state(), State::kUp);
  // 6.8.3: leaving the slow rate changes Desired Min TX: a Poll Sequence announces it, and the
  // faster rate applies at once.
  EXPECT_TRUE(h.session.poll_active());
  EXPECT_EQ(h.session.counters().polls_started, 1u);
  EXPECT_EQ(h.sent.back().time_ns, 500 * kMs);  // at once: the last packet is 500 ms old
  EXPECT_EQ(h.last().state, State::kUp);
  EXPECT_TRUE(h.last().poll);
  EXPECT_EQ(h.last().desired_min_tx_us, kFastUs);
  const std::size_t before = h.sent.size();
  h.run_until(h.now + 100 * kMs);
  EXPECT_EQ(h.sent.size() - before, 10u);
  EXPECT_TRUE(h.last().poll);  // until the Final comes
  ControlPacket final = h.peer(State::kUp);
  final.final = true;
  h.receive(final);
  EXPECT_FALSE(h.session.poll_active());
  EXPECT_EQ(h.session.counters().polls_completed, 1u);
  h.run_until(h.now + 20 * kMs);
  EXPECT_FALSE(h.last().poll);
}

TEST(BfdSession, PollIsAnsweredWithFinalAtOnce) {
  Harness h;
  h.bring_up();
  h.run_until(h.now + 5 * kMs);  // between two periodic packets
  const std::size_t before = h.sent.size();
  ControlPacket poll = h.peer(State::kUp);
  poll.poll = true;
  h.session.on_packet(poll, h.now);
  EXPECT_LE(h.session.next_deadline_ns(), h.now);
  h.drain();
  ASSERT_EQ(h.sent.size(), before + 1);
  EXPECT_TRUE(h.last().final);
  EXPECT_FALSE(h.last().poll);
  EXPECT_EQ(h.session.counters().finals_out, 1u);
  // The periodic schedule goes on as before.
  EXPECT_GT(h.session.next_deadline_ns(), h.now);
}

TEST(BfdSession, DetectionTimeExpiryTakesTheSessionDown) {
  Harness h;
  h.bring_up();
  // 6.8.4: remote Detect Mult x max(our Required Min RX, its Desired Min TX) = 3 x 10 ms.
  EXPECT_EQ(h.session.detection_time_ns(), 30 * kMs);
  const std::uint64_t last_rx = h.now;
  h.run_until(last_rx + 30 * kMs - 1);
  EXPECT_EQ(h.session.state(), State::kUp);
  h.run_until(last_rx + 30 * kMs);
  EXPECT_EQ(h.session.state(), State::kDown);
  EXPECT_EQ(h.session.local_diag(), Diag::kControlDetectionTimeExpired);
  EXPECT_EQ(h.changes.back().time_ns, last_rx + 30 * kMs);
  EXPECT_EQ(h.session.counters().detection_expirations, 1u);
  // 6.8.1: the remote discriminator is forgotten; we are back at the slow rate.
  EXPECT_EQ(h.session.remote_discriminator(), 0u);
  h.run_until(h.now + 1000 * kMs);
  EXPECT_EQ(h.last().your_discriminator, 0u);
  EXPECT_EQ(h.last().state, State::kDown);
  EXPECT_EQ(h.last().diag, Diag::kControlDetectionTimeExpired);
  EXPECT_EQ(h.last().desired_min_tx_us, kSlowTxIntervalUs);
  EXPECT_FALSE(h.last().poll);
}

TEST(BfdSession, DetectionTimeUsesTheSlowerSide) {
  Harness h;
  h.bring_up();
  ControlPacket slow = h.peer(State::kUp, 100'000);
  slow.detect_mult = 5;
  h.receive(slow);
  EXPECT_EQ(h.session.detection_time_ns(), 500 * kMs);
  h.run_until(h.now + 499 * kMs);
  EXPECT_EQ(h.session.state(), State::kUp);
  h.run_until(h.now + 1 * kMs);
  EXPECT_EQ(h.session.state(), State::kDown);
}

TEST(BfdSession, RemoteRequiredMinRxSlowsUsDown) {
  Harness h;
  h.bring_up();
  ControlPacket packet = h.peer(State::kUp);
  packet.required_min_rx_us = 300'000;
  h.receive(packet);
  EXPECT_EQ(h.session.tx_interval_ns(), 300 * kMs);
  // Required Min RX 0: the remote wants no periodic packets (6.8.7), but a Poll still gets its
  // Final.
  packet.required_min_rx_us = 0;
  packet.detect_mult = 255;  // and it keeps us Up meanwhile
  h.receive(packet);
  const std::size_t before = h.sent.size();
  h.run_until(h.now + 2000 * kMs);
  EXPECT_EQ(h.sent.size(), before);
  packet.poll = true;
  h.receive(packet);
  EXPECT_EQ(h.sent.size(), before + 1);
  EXPECT_TRUE(h.last().final);
}

TEST(BfdSession, LocalAdminDown) {
  Harness h;
  h.bring_up();
  h.session.set_admin_down(true, h.now);
  EXPECT_EQ(h.session.state(), State::kAdminDown);
  EXPECT_EQ(h.session.local_diag(), Diag::kAdministrativelyDown);
  // It keeps telling the peer, at the slow rate; what arrives is read and discarded.
  h.run_until(h.now + 3000 * kMs);
  EXPECT_EQ(h.last().state, State::kAdminDown);
  EXPECT_EQ(h.last().diag, Diag::kAdministrativelyDown);
  EXPECT_EQ(h.last().desired_min_tx_us, kSlowTxIntervalUs);
  EXPECT_EQ(h.receive(h.peer(State::kDown)), RejectReason::kLocalAdminDown);
  EXPECT_EQ(h.session.state(), State::kAdminDown);
  EXPECT_EQ(h.session.counters().rejected_for(RejectReason::kLocalAdminDown), 1u);
  // The Detection Time does not apply either.
  h.run_until(h.now + 5000 * kMs);
  EXPECT_EQ(h.session.state(), State::kAdminDown);
  h.session.set_admin_down(false, h.now);
  EXPECT_EQ(h.session.state(), State::kDown);
  EXPECT_EQ(h.session.local_diag(), Diag::kNone);
  h.receive(h.peer(State::kDown));
  EXPECT_EQ(h.session.state(), State::kInit);
}

TEST(BfdSession, StartsAdminDownWhenConfigured) {
  SessionConfig config = fast_config();
  config.admin_down = true;
  Harness h(config);
  h.run_until(0);
  EXPECT_EQ(h.last().state, State::kAdminDown);
  EXPECT_EQ(h.last().diag, Diag::kAdministrativelyDown);
}

TEST(BfdSession, PacketForAnotherSessionIsRefused) {
  Harness h;
  h.bring_up();
  ControlPacket stray = h.peer(State::kDown);
  stray.your_discriminator = kLocal + 1;
  EXPECT_EQ(h.receive(stray), RejectReason::kYourDiscriminatorMismatch);
  EXPECT_EQ(h.session.state(), State::kUp);
  EXPECT_EQ(h.session.counters().rejected_for(RejectReason::kYourDiscriminatorMismatch), 1u);
  EXPECT_EQ(h.session.counters().rejected_total, 1u);
  h.session.count_rejected(RejectReason::kBadTtl);
  EXPECT_EQ(h.session.counters().rejected_for(RejectReason::kBadTtl), 1u);
  EXPECT_EQ(h.session.counters().rejected_total, 2u);
}

TEST(BfdSession, SlowerTxWaitsForTheFinal) {
  Harness h;
  h.bring_up();
  h.session.set_timers(100'000, kFastUs, 3);
  EXPECT_TRUE(h.session.poll_active());
  // 6.8.3: advertised at once, used only when the Poll Sequence ends.
  h.run_until(h.now + 10 * kMs);
  EXPECT_TRUE(h.last().poll);
  EXPECT_EQ(h.last().desired_min_tx_us, 100'000u);
  EXPECT_EQ(h.session.tx_interval_ns(), 10 * kMs);
  ControlPacket final = h.peer(State::kUp);
  final.final = true;
  h.receive(final);
  EXPECT_EQ(h.session.tx_interval_ns(), 100 * kMs);
}

TEST(BfdSession, ShorterDetectionWaitsForTheFinal) {
  SessionConfig config = fast_config();
  config.required_min_rx_us = 50'000;
  Harness h(config);
  h.bring_up();
  EXPECT_EQ(h.session.detection_time_ns(), 150 * kMs);
  h.session.set_timers(kFastUs, kFastUs, 3);
  h.run_until(h.now + 10 * kMs);
  EXPECT_TRUE(h.last().poll);
  EXPECT_EQ(h.last().required_min_rx_us, kFastUs);
  EXPECT_EQ(h.session.detection_time_ns(), 150 * kMs);  // the old value until the Final
  ControlPacket final = h.peer(State::kUp);
  final.final = true;
  h.receive(final);
  EXPECT_EQ(h.session.detection_time_ns(), 30 * kMs);
}

TEST(BfdSession, ChangeDuringPollStartsAnotherPoll) {
  Harness h;
  h.bring_up();
  h.session.set_timers(20'000, kFastUs, 3);
  h.session.set_timers(30'000, kFastUs, 3);
  EXPECT_EQ(h.session.counters().polls_started, 2u);  // the bring-up's and this one
  ControlPacket final = h.peer(State::kUp);
  final.final = true;
  h.receive(final);
  EXPECT_TRUE(h.session.poll_active());  // one Poll at a time (6.5): the second starts now
  EXPECT_EQ(h.session.counters().polls_started, 3u);
  h.receive(final);
  EXPECT_FALSE(h.session.poll_active());
  EXPECT_EQ(h.session.tx_interval_ns(), 30 * kMs);
}

TEST(BfdSession, ConfigChecksAreNamed) {
  EXPECT_EQ(check_session_config(fast_config()), "");
  SessionConfig config = fast_config();
  config.local_discriminator = 0;
  EXPECT_EQ(check_session_config(config), "the local discriminator must not be 0");
  config = fast_config();
  config.detect_mult = 0;
  EXPECT_EQ(check_session_config(config), "detect_mult must be 1-255");
  config = fast_config();
  config.desired_min_tx_us = 9'999;
  EXPECT_EQ(check_session_config(config),
            "desired_min_tx and required_min_rx must be at least 10 ms");
}

}  // namespace
}  // namespace braid::bfd
