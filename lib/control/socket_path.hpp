// Where the control socket lives when the config does not say: /run/braid/<file_prefix>.sock
// when /run/braid exists or can be created and is writable (root, or a service with
// RuntimeDirectory=braid), else /tmp/braid-<file_prefix>.sock. braidctl looks in the same two
// places, so `braidctl --file-prefix P` finds the braid started with that prefix.
#pragma once

#include <string>

namespace braid::control {

inline constexpr const char* kRunDirectory = "/run/braid";

// For the server: may create /run/braid (mode 0755).
std::string default_socket_path(const std::string& file_prefix);
// For a client: the /run/braid path when a socket is there, else the /tmp one.
std::string find_socket_path(const std::string& file_prefix);

}  // namespace braid::control
