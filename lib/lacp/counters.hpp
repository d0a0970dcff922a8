// Per-port protocol counters for the console and telemetry.
#pragma once

#include <array>
#include <cstdint>

#include "lacp/decode_error.hpp"

namespace braid::lacp {

struct PortCounters {
  std::uint64_t lacpdu_rx = 0;          // valid LACPDUs handed to the Receive machine
  std::uint64_t lacpdu_rx_ignored = 0;  // valid, but the port was disabled or LACP-disabled
  std::uint64_t lacpdu_tx = 0;
  std::uint64_t lacpdu_tx_deferred = 0;  // NTT held back by the 3-per-second limit (6.4.16)
  std::uint64_t lacpdu_tx_failed = 0;    // the port refused the frame; NTT kept, sent again
  std::uint64_t goodbye_tx = 0;          // out-of-sync LACPDUs sent as the port left service
  std::uint64_t resumed = 0;    // went back into service from a restart's saved state (resume.hpp)
  std::uint64_t marker_rx = 0;  // Marker Information PDUs received
  std::uint64_t marker_response_rx = 0;  // Marker Response PDUs received
  std::uint64_t marker_tx = 0;           // Marker Information PDUs sent (braid sends none yet)
  std::uint64_t marker_response_tx = 0;
  std::uint64_t marker_response_suppressed = 0;  // over kMaxMarkerResponsesPerSecond
  std::uint64_t marker_response_tx_failed = 0;   // the port refused the response frame
  std::uint64_t bad_pdu_total = 0;
  std::array<std::uint64_t, kDecodeErrorCount> bad_pdu{};  // indexed by DecodeError

  std::uint64_t bad(DecodeError error) const { return bad_pdu[static_cast<std::size_t>(error)]; }
};

}  // namespace braid::lacp
