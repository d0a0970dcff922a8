// Who may use the control socket (control_socket.cpp checks every connection with SO_PEERCRED):
// the user braid runs as, and root, who can open the socket file whatever its mode anyway, so
// that `sudo braidctl` works on a service running as its own user.
#pragma once

#include <sys/types.h>

namespace braid::control {

inline bool control_peer_allowed(uid_t peer, uid_t braid_user) {
  return peer == braid_user || peer == 0;
}

}  // namespace braid::control
