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

void check_af_packet_queues(const config::Config& config, std::vector<StartProblem>& problems) {
  std::map<std::string_view, const config::BondConfig*> bond_of;
  for (const config::BondConfig& bond : config.bonds)
    for (const std::string& member : bond.members)
      bond_of.emplace(member, &bond);
  for (std::size_t i = 0; i < config.ports.size(); ++i) {
    const config::PortConfig& port = config.ports[i];
    if (!config::is_af_packet_device(port.device)) continue;
    const std::string where =
        "config: " + config.origin + ": ports[" + std::to_string(i) + "] \"" + port.name + "\": ";
    const std::optional<unsigned> qpairs = config::af_packet_qpairs(port.device);
    if (!qpairs || *qpairs == 0) {
      problems.push_back({where + "device \"" + port.device +
                          "\": qpairs= must be a whole number from 1 (net_af_packet refuses it)"});
      continue;
    }
    const auto bond = bond_of.find(port.name);
    const PortQueues queues = plan_port_queues(port, bond == bond_of.end() ? nullptr : bond->second,
                                               config.workers.lcores.size());
    if (queues.data_rx_queues > *qpairs) {
      problems.push_back({where + "rx_queues " + std::to_string(queues.data_rx_queues) +
                          " exceeds the device maximum " + std::to_string(*qpairs) +
                          "; raise qpairs= in its device string or lower rx_queues"});
    }
    if (queues.tx_queues > *qpairs) {
      problems.push_back(
          {where + config::tx_queue_shortfall(queues.tx_queues, queues.control_tx_queue, *qpairs,
                                              "net_af_packet", port.device)});
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
  if (!host.root && host.xdg_runtime_dir != nullptr && !host.xdg_runtime_dir_exists) {
    problems.push_back({"braid: XDG_RUNTIME_DIR=" + std::string(host.xdg_runtime_dir) +
                            " is not a directory: EAL cannot create its runtime directory "
                            "there and refuses to start (create it, or unset XDG_RUNTIME_DIR "
                            "for /tmp)",
                        true});
    return;
  }
  if (has_arg(eal_argv, "--no-telemetry")) return;
  const std::string base = dpdk_runtime_dir("", host.root, host.xdg_runtime_dir);
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
  host.root = ::getuid() == 0;
  host.xdg_runtime_dir = std::getenv("XDG_RUNTIME_DIR");
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
  check_af_packet_queues(config, problems);
  if (!lcores_remapped(eal_argv)) check_lcores(config, host, problems);
  check_runtime_dir(eal_argv, host, problems);
  return problems;
}

}  // namespace braid::engine
