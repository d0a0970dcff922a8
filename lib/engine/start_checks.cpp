#include "engine/start_checks.hpp"

#include <sched.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string_view>

#include "config/devargs.hpp"
#include "config/file_prefix.hpp"
#include "engine/port_queues.hpp"
#include "engine/runtime_lock.hpp"

namespace braid::engine {
namespace {

// DPDK 22.11's telemetry socket, the longest path a primary process binds in its runtime
// directory (lib/telemetry/telemetry.c, get_socket_path: "<runtime dir>/dpdk_telemetry.v2").
// telemetry_v2_init refuses a path that does not fit sun_path ("Error with socket binding, path
// too long"), and rte_eal_init fails with it.
constexpr std::string_view kTelemetrySocket = "/dpdk_telemetry.v2";
constexpr std::size_t kMaxSocketPath = sizeof(sockaddr_un{}.sun_path) - 1;
constexpr std::size_t kInterfaceNameRoom = 16;  // IFNAMSIZ, with the terminating NUL
constexpr std::string_view kTunDevice = "/dev/net/tun";

std::string port_where(const config::Config& config, std::size_t i) {
  return "config: " + config.origin + ": ports[" + std::to_string(i) + "] \"" +
         config.ports[i].name + "\": ";
}

bool has_arg(const std::vector<std::string>& argv, std::string_view name) {
  for (std::size_t i = 1; i < argv.size() && argv[i] != "--"; ++i)
    if (argv[i] == name) return true;
  return false;
}

// --lcores with '@' or groups maps lcore N onto other CPUs (1@3, (1,2)@(4,5)): lcore numbers
// are then not CPU numbers, and EAL checks the CPUs it was given itself.
bool lcores_remapped(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size() && argv[i] != "--"; ++i) {
    std::string_view arg = argv[i];
    constexpr std::string_view kOption = "--lcores";
    if (arg == kOption && i + 1 < argv.size()) {
      arg = argv[++i];
    } else if (arg.starts_with(kOption) && arg.size() > kOption.size() &&
               arg[kOption.size()] == '=') {
      arg.remove_prefix(kOption.size() + 1);
    } else {
      continue;
    }
    if (arg.find_first_of("@(") != std::string_view::npos) return true;
  }
  return false;
}

// net_af_packet and virtio_user open the queue pairs their device string names (qpairs=,
// queues=), no more: a worker short of a TX queue is a start-up error that is better said now.
void check_queue_pairs(const config::Config& config, std::vector<StartProblem>& problems) {
  std::map<std::string_view, const config::BondConfig*> bond_of;
  for (const config::BondConfig& bond : config.bonds)
    for (const std::string& member : bond.members)
      bond_of.emplace(member, &bond);
  for (std::size_t i = 0; i < config.ports.size(); ++i) {
    const config::PortConfig& port = config.ports[i];
    const std::string_view key = config::queue_pairs_devarg(port.device);
    if (key.empty()) continue;
    const std::string where = port_where(config, i);
    const std::optional<unsigned> pairs = config::device_queue_pairs(port.device);
    if (!pairs || *pairs == 0) {
      problems.push_back({where + "device \"" + port.device + "\": " + std::string(key) +
                          "= must be a whole number from 1 (the PMD refuses it)"});
      continue;
    }
    const auto bond = bond_of.find(port.name);
    const PortQueues queues = plan_port_queues(port, bond == bond_of.end() ? nullptr : bond->second,
                                               config.workers.lcores.size());
    if (queues.data_rx_queues > *pairs) {
      problems.push_back({where + "rx_queues " + std::to_string(queues.data_rx_queues) +
                          " exceeds the device maximum " + std::to_string(*pairs) + "; raise " +
                          std::string(key) + "= in its device string or lower rx_queues"});
    }
    if (queues.tx_queues > *pairs) {
      problems.push_back(
          {where + config::tx_queue_shortfall(queues.tx_queues, queues.control_tx_queue, *pairs,
                                              port.device)});
    }
  }
}

// A host-facing netdev needs its kernel side: virtio_user's path= (/dev/vhost-net, a character
// device, or a vhost-user socket) and /dev/net/tun for net_tap. DPDK's own errors for a missing
// one ("virtio_user_dev_init(): Backend type detection failed") do not say what to do.
void check_host_netdevs(const config::Config& config, const HostFacts& host,
                        std::vector<StartProblem>& problems) {
  for (std::size_t i = 0; i < config.ports.size(); ++i) {
    const config::PortConfig& port = config.ports[i];
    const std::string where = port_where(config, i) + "device \"" + port.device + "\": ";
    if (config::is_virtio_user_device(port.device)) {
      const std::optional<std::string> path = config::devarg(port.device, "path");
      if (!path || path->empty()) {
        problems.push_back({where + "virtio_user needs path= (/dev/vhost-net for a host netdev "
                                    "through the kernel's vhost-net, or a vhost-user socket)"});
        continue;
      }
      const PathKind kind = host.path_kind(*path);
      if (kind == PathKind::kMissing) {
        const bool vhost_net = path->ends_with("vhost-net");
        problems.push_back(
            {where + *path + " does not exist" +
                 (vhost_net ? ": this host has no vhost-net (load it: modprobe vhost_net); "
                              "without it use a net_tap host port instead, device "
                              "\"net_tap0,iface=braid0\" (config/host-bond.yaml shows both)"
                            : ": start the vhost-user backend that creates this socket first"),
             true});
      } else if (kind == PathKind::kOther) {
        problems.push_back({where + *path +
                                " is neither a character device (vhost-net) nor a socket "
                                "(vhost-user)",
                            true});
      }
    } else if (config::is_tap_device(port.device)) {
      if (const std::optional<std::string> iface = config::devarg(port.device, "iface");
          iface && iface->size() >= kInterfaceNameRoom) {
        problems.push_back({where + "iface=" + *iface + " is " + std::to_string(iface->size()) +
                            " characters; Linux interface names have at most " +
                            std::to_string(kInterfaceNameRoom - 1)});
      }
      if (host.path_kind(std::string(kTunDevice)) != PathKind::kCharDevice) {
        problems.push_back({where + "net_tap needs " + std::string(kTunDevice) +
                                ", which this host lacks (load it: modprobe tun)",
                            true});
      }
    }
  }
}

void check_lcores(const config::Config& config, const HostFacts& host,
                  std::vector<StartProblem>& problems) {
  const auto missing = [&](unsigned lcore) {
    return !std::binary_search(host.cpus.begin(), host.cpus.end(), lcore);
  };
  const std::string have = " (this host lets braid run on CPUs " + cpu_list(host.cpus) + ")";
  if (missing(config.eal.main_lcore)) {
    problems.push_back({"config: " + config.origin + ": eal.main_lcore: lcore " +
                            std::to_string(config.eal.main_lcore) + " is not a CPU of this host" +
                            have,
                        true});
  }
  std::vector<unsigned> absent;
  for (unsigned lcore : config.workers.lcores)
    if (missing(lcore)) absent.push_back(lcore);
  if (!absent.empty()) {
    problems.push_back(
        {"config: " + config.origin +
             ": workers.lcores: " + (absent.size() == 1 ? "lcore " : "lcores ") + cpu_list(absent) +
             (absent.size() == 1 ? " is not a CPU" : " are not CPUs") + " of this host" + have,
         true});
  }
}

void check_runtime_dir(const std::vector<std::string>& eal_argv, const HostFacts& host,
                       std::vector<StartProblem>& problems) {
  const std::string prefix = eal_file_prefix(eal_argv);
  // eal.file_prefix was checked with the config; one given after "--" is checked here.
  if (const std::string problem = config::file_prefix_problem(prefix); !problem.empty()) {
    problems.push_back({"braid: --file-prefix: " + problem});
    return;
  }
  if (host.runtime_directory == nullptr && !host.root && host.xdg_runtime_dir != nullptr &&
      !host.xdg_runtime_dir_exists) {
    problems.push_back({"braid: XDG_RUNTIME_DIR=" + std::string(host.xdg_runtime_dir) +
                            " is not a directory: EAL cannot create its runtime directory "
                            "there and refuses to start (create it, or unset XDG_RUNTIME_DIR "
                            "for /tmp)",
                        true});
    return;
  }
  if (has_arg(eal_argv, "--no-telemetry")) return;
  const std::string base =
      dpdk_runtime_dir("", host.root, host.xdg_runtime_dir, host.runtime_directory);
  const std::size_t length = base.size() + prefix.size() + kTelemetrySocket.size();
  if (length <= kMaxSocketPath) return;
  const std::size_t room = kMaxSocketPath - std::min(kMaxSocketPath, length - prefix.size());
  problems.push_back(
      {"braid: file prefix \"" + prefix + "\": EAL's telemetry socket " + base + prefix +
           std::string(kTelemetrySocket) + " is " + std::to_string(length) +
           " bytes, more than a UNIX socket path may have (" + std::to_string(kMaxSocketPath) +
           "), and DPDK 22.11 refuses to start; " +
           (room == 0 ? std::string("no prefix fits here: use a shorter XDG_RUNTIME_DIR")
                      : "use a file prefix of at most " + std::to_string(room) +
                            " characters here, or a shorter XDG_RUNTIME_DIR"),
       true});
}

}  // namespace

HostFacts this_host() {
  HostFacts host;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) host.cpus.push_back(cpu);
  }
  host.path_kind = [](const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) return PathKind::kMissing;
    if (S_ISCHR(status.st_mode)) return PathKind::kCharDevice;
    if (S_ISSOCK(status.st_mode)) return PathKind::kSocket;
    return PathKind::kOther;
  };
  host.root = ::getuid() == 0;
  host.xdg_runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  host.runtime_directory = std::getenv("RUNTIME_DIRECTORY");
  struct stat status {};
  host.xdg_runtime_dir_exists =
      host.xdg_runtime_dir == nullptr ||
      (::stat(host.xdg_runtime_dir, &status) == 0 && S_ISDIR(status.st_mode));
  return host;
}

std::string cpu_list(const std::vector<unsigned>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
      ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(cpus[i]);
    if (j > i) text += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text.empty() ? "none" : text;
}

std::vector<StartProblem> start_problems(const config::Config& config,
                                         const std::vector<std::string>& eal_argv,
                                         const HostFacts& host) {
  std::vector<StartProblem> problems;
  check_queue_pairs(config, problems);
  check_host_netdevs(config, host, problems);
  if (!lcores_remapped(eal_argv)) check_lcores(config, host, problems);
  check_runtime_dir(eal_argv, host, problems);
  return problems;
}

}  // namespace braid::engine
