#include "bfd/types.hpp"

namespace braid::bfd {

const char* to_string(State state) {
  switch (state) {
    case State::kAdminDown:
      return "admin_down";
    case State::kDown:
      return "down";
    case State::kInit:
      return "init";
    case State::kUp:
      return "up";
  }
  return "unknown";
}

const char* to_string(Diag diag) {
  switch (diag) {
    case Diag::kNone:
      return "none";
    case Diag::kControlDetectionTimeExpired:
      return "control_detection_time_expired";
    case Diag::kEchoFunctionFailed:
      return "echo_function_failed";
    case Diag::kNeighborSignaledSessionDown:
      return "neighbor_signaled_session_down";
    case Diag::kForwardingPlaneReset:
      return "forwarding_plane_reset";
    case Diag::kPathDown:
      return "path_down";
    case Diag::kConcatenatedPathDown:
      return "concatenated_path_down";
    case Diag::kAdministrativelyDown:
      return "administratively_down";
    case Diag::kReverseConcatenatedPathDown:
      return "reverse_concatenated_path_down";
  }
  return "reserved";
}

const char* to_string(AuthType type) {
  switch (type) {
    case AuthType::kReserved:
      return "reserved";
    case AuthType::kSimplePassword:
      return "simple_password";
    case AuthType::kKeyedMd5:
      return "keyed_md5";
    case AuthType::kMeticulousKeyedMd5:
      return "meticulous_keyed_md5";
    case AuthType::kKeyedSha1:
      return "keyed_sha1";
    case AuthType::kMeticulousKeyedSha1:
      return "meticulous_keyed_sha1";
  }
  return "unknown";
}

}  // namespace braid::bfd
