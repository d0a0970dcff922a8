// The session states and diagnostic codes of RFC 5880 4.1, as they travel in the State (Sta)
// and Diag fields of a Control packet.
#pragma once

#include <cstdint>

namespace braid::bfd {

// RFC 5880 4.1 State (Sta), two bits.
enum class State : std::uint8_t { kAdminDown = 0, kDown = 1, kInit = 2, kUp = 3 };

// RFC 5880 4.1 Diagnostic (Diag), five bits; 9-31 are reserved and travel as they are.
enum class Diag : std::uint8_t {
  kNone = 0,
  kControlDetectionTimeExpired = 1,
  kEchoFunctionFailed = 2,
  kNeighborSignaledSessionDown = 3,
  kForwardingPlaneReset = 4,
  kPathDown = 5,
  kConcatenatedPathDown = 6,
  kAdministrativelyDown = 7,
  kReverseConcatenatedPathDown = 8,
};

// RFC 5880 4.1 Auth Type. braid verifies none of them (RejectReason::kAuthUnsupported).
enum class AuthType : std::uint8_t {
  kReserved = 0,
  kSimplePassword = 1,
  kKeyedMd5 = 2,
  kMeticulousKeyedMd5 = 3,
  kKeyedSha1 = 4,
  kMeticulousKeyedSha1 = 5,
};

// Lower-case names as the RFC writes them ("admin_down", "down", "init", "up").
const char* to_string(State state);
// snake_case ("control_detection_time_expired", ...); "reserved" for 9-31.
const char* to_string(Diag diag);
const char* to_string(AuthType type);

}  // namespace braid::bfd
