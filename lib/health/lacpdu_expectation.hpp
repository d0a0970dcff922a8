// The lacpdu_missed signal's counters: LACPDUs a member's partner owes us against those it
// sent. While the link is up and the partner is known (not Defaulted), it sends one every
// periodic time: fast (1 s) when our actor state says Short Timeout, slow (30 s) otherwise
// (802.1AX-2014 6.4.13: the Periodic Transmission machine of the partner runs on what it
// learned of our Timeout bit; it stops only when both ends are Passive). Each sample adds the
// LACPDUs owed since the last one (fractions carry over) and takes what arrived; what stays
// owed beyond one LACPDU (one in flight across a sample boundary is lateness, not loss) is
// missed. A partner that sent more than it owed (802.1AX allows up to 3 per fast periodic
// interval, on state changes) banks at most one LACPDU of credit, so a burst never hides a
// later silence. The sample is {missed, owed} as monotonic counters, the form every signal
// takes (error_rate.hpp). Pure: time and counts are injected.
//
//   LacpduExpectation expect;
//   CounterSample s = expect.sample(now_ns, 1'000'000'000 /* partner sends every 1 s */, rx);
#pragma once

#include <cstdint>
#include <optional>

#include "health/error_rate.hpp"

namespace braid::health {

class LacpduExpectation {
 public:
  // `period_ns`: how often the partner sends now; nullopt while it owes nothing (link down,
  // no partner, both ends Passive). `received`: LACPDUs received so far (monotonic; a count
  // that goes back was reset and becomes the new baseline).
  CounterSample sample(std::uint64_t now_ns, std::optional<std::uint64_t> period_ns,
                       std::uint64_t received);

 private:
  bool started_ = false;
  std::uint64_t last_ns_ = 0;
  std::uint64_t last_received_ = 0;
  double owed_total_ = 0;  // LACPDUs owed since the first sample (fractions included)
  double balance_ = 0;     // owed and not received; down to -kCredit
  std::uint64_t missed_ = 0;
};

}  // namespace braid::health
