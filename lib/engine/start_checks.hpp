// What start-up would refuse, found without starting EAL, so that `braid --check` says it: a
// net_af_packet or virtio_user port with too few queue pairs, a host netdev whose kernel side is
// missing (/dev/vhost-net, /dev/net/tun), lcores this host does not have, an EAL runtime
// directory whose socket paths do not fit a UNIX socket address. Pure but for this_host().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace braid::engine {

enum class PathKind { kMissing, kCharDevice, kSocket, kOther };

// What the checks need to know about the machine they run on.
struct HostFacts {
  // What a path names here (/dev/vhost-net, /dev/net/tun, a vhost-user socket).
  std::function<PathKind(const std::string&)> path_kind = [](const std::string&) {
    return PathKind::kMissing;
  };
  std::vector<unsigned> cpus;  // CPUs this process may run on (sched_getaffinity), ascending
  bool root = false;
  const char* xdg_runtime_dir = nullptr;    // getenv("XDG_RUNTIME_DIR")
  const char* runtime_directory = nullptr;  // getenv("RUNTIME_DIRECTORY") (systemd): DPDK's first
  bool xdg_runtime_dir_exists = true;       // it names a directory
};
HostFacts this_host();

struct StartProblem {
  std::string message;
  // True when it depends on this machine rather than on the config (its CPUs, its runtime
  // directory): `--check --portable`, for a config written on another machine, warns instead.
  bool about_host = false;
};

// `eal_argv` is build_eal_args' result (a --file-prefix after "--" wins over the config's).
std::vector<StartProblem> start_problems(const config::Config& config,
                                         const std::vector<std::string>& eal_argv,
                                         const HostFacts& host);

// "0-3,6": a CPU list the way Linux writes one (/sys/devices/system/cpu/online).
std::string cpu_list(const std::vector<unsigned>& cpus);

}  // namespace braid::engine
