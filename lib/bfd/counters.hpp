// Per-session BFD counters for the console and telemetry.
#pragma once

#include <array>
#include <cstdint>

#include "bfd/reject_reason.hpp"

namespace braid::bfd {

struct SessionCounters {
  std::uint64_t packets_in = 0;   // Control packets the state machine took
  std::uint64_t packets_out = 0;  // every packet poll() returned, finals included
  std::uint64_t finals_out = 0;   // packets with the F bit, answering a peer's Poll
  std::uint64_t polls_started = 0;
  std::uint64_t polls_completed = 0;  // a Final arrived
  std::uint64_t state_changes = 0;
  std::uint64_t detection_expirations = 0;  // Detection Time passed without a packet (6.8.4)
  std::uint64_t rejected_total = 0;
  std::array<std::uint64_t, kRejectReasonCount> rejected{};  // indexed by RejectReason

  std::uint64_t rejected_for(RejectReason reason) const {
    return rejected[static_cast<std::size_t>(reason)];
  }
};

}  // namespace braid::bfd
