// The counters of the signals that count a peer's periodic packets: what it owes us against
// what it sent. lacpdu_missed: while the link is up and the partner is known (not Defaulted), it
// sends an LACPDU every periodic time: fast (1 s) when our actor state says Short Timeout, slow
// (30 s) otherwise (802.1AX-2014 6.4.13: the Periodic Transmission machine of the partner runs
// on what it learned of our Timeout bit; it stops only when both ends are Passive). bfd_missed:
// while the session is Up, the peer sends a Control packet every max(its Desired Min TX, our
// Required Min RX) less its jitter (RFC 5880 6.8.7: never slower). Each sample adds the packets
// owed since the last one (fractions carry over) and takes what arrived; what stays owed
// beyond one packet (one in flight across a sample boundary is lateness, not loss) is missed.
// The first interval after one that owed nothing is a baseline: the peer began owing somewhere
// inside it (at the session's Up, say, which a 1 s sample cannot place).
// A peer that sent more than it owed (802.1AX allows up to 3 LACPDUs per fast periodic interval,
// on state changes; BFD's jitter sends early) banks at most one packet of credit, so a burst
// never hides a later silence. The sample is {missed, owed} as monotonic counters, the form
// every signal takes (error_rate.hpp). Pure: time and counts are injected.
//
//   PeriodicExpectation expect;
//   CounterSample s = expect.sample(now_ns, 1'000'000'000 /* partner sends every 1 s */, rx);
#pragma once

#include <cstdint>
#include <optional>

#include "health/error_rate.hpp"

namespace braid::health {

class PeriodicExpectation {
 public:
  // `period_ns`: how often the peer sends now; nullopt while it owes nothing (link down, no
  // partner, both ends Passive; a BFD session not Up). `received`: its packets received so far
  // (monotonic; a count that goes back was reset and becomes the new baseline). `in_flight`:
  // owed packets that are late rather than missed (one by default); a protocol whose own
  // detection takes the peer down after N missing packets passes N, so that the silence just
  // before a detection is the detection's (the member goes down for it) and not also an error
  // rate that outlives it, while a steady loss still adds up.
  CounterSample sample(std::uint64_t now_ns, std::optional<std::uint64_t> period_ns,
                       std::uint64_t received, double in_flight = 1.0);

 private:
  bool started_ = false;
  bool owing_ = false;  // the last sample had a period
  std::uint64_t last_ns_ = 0;
  std::uint64_t last_received_ = 0;
  double owed_total_ = 0;  // packets owed since the first sample (fractions included)
  double balance_ = 0;     // owed and not received; down to -kCredit
  std::uint64_t missed_ = 0;
};

}  // namespace braid::health
