// The rule for an EAL file prefix. DPDK makes a directory of that name under its runtime
// directory (/var/run/dpdk/<prefix>/ for root), puts its lock file and multi-process sockets in
// it, and names its hugepage files after it; braid names its control socket after it. The
// prefix is one path component of a short, sane spelling, so it can never move those files.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace braid::config {

// The longest file prefix. DPDK's longest socket path is a secondary process's
// <runtime dir>/dpdk/<prefix>/mp_socket_<pid>_<tsc in hex>: for a user session
// (/run/user/<uid>) that is 55 bytes besides the prefix, and sun_path holds 107. 32 keeps every
// path inside it with room for a longer $XDG_RUNTIME_DIR, and is ample for a name.
inline constexpr std::size_t kMaxFilePrefix = 32;

// Empty when `prefix` is a valid file prefix: 1..kMaxFilePrefix letters, digits, '-', '_' or
// '.', not starting with '.' and without "..". Otherwise what is wrong and what is allowed.
std::string file_prefix_problem(std::string_view prefix);

}  // namespace braid::config
