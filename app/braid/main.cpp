// braid: wiring only. Options -> config -> start-up checks -> EAL -> engine -> control plane
// (management thread) and protocol loop (this, the main lcore's thread) -> shutdown.
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "bond/dpdk/bond_commands.hpp"
#include "common/clock.hpp"
#include "common/job_queue.hpp"
#include "common/plural.hpp"
#include "config/config_loader.hpp"
#include "config/demo_config.hpp"
#include "control/control_plane.hpp"
#include "control/control_socket.hpp"
#include "control/socket_path.hpp"
#include "engine/eal_args.hpp"
#include "engine/engine.hpp"
#include "engine/engine_commands.hpp"
#include "engine/health_endpoint.hpp"
#include "engine/host_sockets.hpp"
#include "engine/memory_commands.hpp"
#include "engine/memory_plan.hpp"
#include "engine/protocol_commands.hpp"
#include "engine/protocol_loop.hpp"
#include "engine/restart_command.hpp"
#include "engine/runtime_lock.hpp"
#include "engine/start_checks.hpp"
#include "engine/stats_line.hpp"
#include "log/async_log.hpp"
#include "log/log_types.hpp"
#include "options.hpp"
#include "sched/dpdk/sched_commands.hpp"
#include "trace/synthetic_trace.hpp"

namespace {

std::atomic<int> stop_signal{0};
// The running protocol loop, for the signal handler (an atomic store and a write(2)).
std::atomic<braid::engine::ProtocolLoop*> signal_loop{nullptr};

void on_signal(int signal_number) {
  stop_signal.store(signal_number);
  if (braid::engine::ProtocolLoop* loop = signal_loop.load()) loop->request_stop();
}

using braid::monotonic_ns;

braid::config::Config load(const braid::app::Options& options) {
  if (options.config_path.empty()) {
    return braid::config::parse_config(braid::config::demo_config_text(),
                                       "built-in demo (config/demo.yaml)");
  }
  return braid::config::load_config_file(options.config_path);
}

std::vector<braid::engine::PortStatsView> port_views(const braid::engine::Engine& engine,
                                                     const braid::config::Config& config) {
  std::vector<braid::engine::PortStatsView> views;
  for (std::size_t i = 0; i < engine.port_count(); ++i) {
    braid::engine::PortStatsView view;
    view.name = engine.port(i).name();
    view.port_id = engine.port(i).id();
    view.nic = engine.nic_counters(i);
    views.push_back(std::move(view));
  }
  braid::engine::describe_ports(config, views);
  return views;
}

// Returns braid's exit status (0, or RestartCommand::kExitStatus after `restart`).
int run(const braid::config::Config& config, const braid::app::Options& options,
        braid::log::AsyncLog& async_log) {
  braid::engine::Engine engine(config);
  for (const std::string& note : engine.notes())
    BRAID_LOG_TO(kEngine, INFO, "%s\n", note.c_str());
  std::printf("placement:\n%s", engine.placement_report().c_str());
  for (std::size_t i = 0; i < engine.port_count(); ++i) {
    const auto& port = engine.port(i);
    const std::optional<std::uint16_t> slow_queue = port.slow_rx_queue();
    const std::string slow = slow_queue ? " + slow rx queue " + std::to_string(*slow_queue) + " (" +
                                              port.slow_steering_description() + ")"
                                        : "";
    std::printf("port %s: ethdev %u (%s), socket %d, %u rx%s / %u tx queues, %u/%u descriptors\n",
                port.name().c_str(), port.id(), port.driver().c_str(), port.socket(),
                port.rx_queues(), slow.c_str(), port.tx_queues(), port.rx_descriptors(),
                port.tx_descriptors());
  }
  braid::JobQueue jobs;
  braid::engine::ProtocolLoop loop(engine, jobs,
                                   {.rt_priority = config.control.protocol_rt_priority});
  braid::control::ControlPlane control(
      {.file_prefix = braid::control::eal_file_prefix(),
       .interactive = options.interactive,
       .socket_path = options.control_socket.value_or(config.control.socket),
       .metrics_listen = config.metrics.listen},
      jobs);
  control.on_quit([&loop] { loop.request_stop(); });
  braid::engine::RestartCommand restart(engine, braid::control::eal_file_prefix());
  restart.register_command(control, loop);
  braid::engine::register_engine_commands(control, engine);
  braid::engine::register_memory_commands(control, engine);
  braid::engine::register_protocol_commands(control, engine, loop);
  braid::engine::register_health_endpoint(control, engine, loop);
  std::vector<braid::bond::Bond*> bonds;
  for (std::size_t b = 0; b < engine.bond_count(); ++b)
    bonds.push_back(&engine.bond(b));
  braid::bond::register_bond_commands(control, bonds);
  std::vector<braid::sched::ScheduledBond> scheduled;
  for (std::size_t b = 0; b < engine.bond_count(); ++b)
    scheduled.push_back({&engine.bond(b), &engine.bond_scheduler(b)});
  braid::sched::register_sched_commands(control, scheduled);

  const std::uint64_t start_ns = monotonic_ns();
  const std::uint32_t interval_ms =
      options.stats_interval_ms.value_or(options.interactive ? 0 : config.stats.interval_ms);
  if (interval_ms > 0) {
    // A job on the protocol loop: the NIC counters it reads are read there only (ixgbe and i40e
    // accumulate clear-on-read registers without a lock: two threads reading one port lose or
    // double counts). Its line goes through the log's queue, so a slow terminal blocks nothing.
    auto previous = std::make_shared<braid::datapath::CounterTotals>(engine.totals());
    auto previous_ns = std::make_shared<std::uint64_t>(start_ns);
    control.every(
        "stats", std::uint64_t{interval_ms} * 1'000'000,
        [&engine, &config, &async_log, previous, previous_ns, start_ns](std::uint64_t now) {
          const braid::datapath::CounterTotals current = engine.totals();
          async_log.print(
              braid::engine::format_stats_line(static_cast<double>(now - start_ns) / 1e9,
                                               static_cast<double>(now - *previous_ns) / 1e9,
                                               current, *previous, port_views(engine, config)) +
              "\n");
          *previous = current;
          *previous_ns = now;
        });
  }
  // The socket, the metrics port and the console before anything forwards: a socket in use
  // stops braid here, with the ports closed again and nothing sent.
  control.open(start_ns);
  restart.take_saved_state();
  engine.start();
  std::fflush(stdout);  // what printf wrote before goes out before the log's queue
  async_log.print("forwarding; Ctrl-C stops\n");
  control.start();
  signal_loop.store(&loop);
  const std::uint64_t end_ns = options.duration_s
                                   ? start_ns + std::uint64_t{*options.duration_s} * 1'000'000'000
                                   : UINT64_MAX;
  loop.run(end_ns);
  signal_loop.store(nullptr);
  if (const int signal_number = stop_signal.load(); signal_number != 0) {
    std::printf("signal %d: stopping\n", signal_number);
  }
  control.stop();
  restart.stop_engine();
  std::printf(
      "%s",
      braid::engine::format_final_report(engine.totals(), port_views(engine, config)).c_str());
  std::fflush(stdout);
  return restart.requested() ? braid::engine::RestartCommand::kExitStatus : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const braid::app::Options options = braid::app::parse_options(argc, argv);
  braid::config::Config config;
  try {
    config = load(options);
  } catch (const braid::config::ConfigError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  for (const std::string& warning : config.warnings)
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const braid::engine::EalArgs eal =
      braid::engine::build_eal_args(config, options.eal_args, braid::engine::hugepages_available());
  // What start-up would refuse, before anything is written or EAL takes the prefix.
  bool refused = false;
  for (const braid::engine::StartProblem& problem :
       braid::engine::start_problems(config, eal.argv, braid::engine::this_host())) {
    const bool warn = problem.about_host && options.portable;
    std::fprintf(stderr, "%s%s\n", warn ? "warning: " : "", problem.message.c_str());
    refused = refused || !warn;
  }
  if (refused) return 1;
  if (options.check_only) {
    std::printf("config %s: valid (%s, %s, %s)\n", config.origin.c_str(),
                braid::counted(config.ports.size(), "port").c_str(),
                braid::counted(config.workers.lcores.size(), "worker").c_str(),
                braid::counted(config.cross_connects.size(), "cross-connect").c_str());
    if (options.memory) {
      const braid::engine::MemoryPlan plan = braid::engine::plan_memory(
          config, braid::engine::port_sockets_from_sysfs(config, options.sysfs),
          braid::engine::cpu_socket_from_sysfs(config.eal.main_lcore, options.sysfs));
      std::printf("%s", braid::engine::format_memory_plan(plan).c_str());
    }
    return 0;
  }

  try {
    if (config.trace) {
      const braid::config::TraceConfig& trace = *config.trace;
      braid::trace::write_trace(trace.path, {.flows = trace.flows,
                                             .packets = trace.packets,
                                             .frame_size = trace.frame_size,
                                             .seed = trace.seed});
      std::printf("trace %s: %s over %s\n", trace.path.c_str(),
                  braid::counted(trace.packets, "packet").c_str(),
                  braid::counted(trace.flows, "flow").c_str());
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "braid: %s\n", error.what());
    return 1;
  }

  for (const std::string& note : eal.notes)
    std::printf("braid: %s\n", note.c_str());
  // Everything that would make start-up fail half-way is checked before EAL takes the prefix.
  if (const std::optional<std::string> problem = braid::engine::check_file_prefix(eal.argv)) {
    std::fprintf(stderr, "%s\n", problem->c_str());
    return 1;
  }
  const std::string prefix =
      braid::engine::locked_file_prefix(eal.argv).value_or(config.eal.file_prefix);
  const std::string socket_path = options.control_socket.value_or(config.control.socket);
  if (socket_path != "off") {
    try {
      braid::control::ControlSocket::check_available(
          socket_path.empty() ? braid::control::default_socket_path(prefix) : socket_path);
    } catch (const braid::control::ControlSocketError& error) {
      std::fprintf(stderr, "braid: %s\n", error.what());
      return 1;
    }
  }
  std::vector<char*> eal_argv;
  for (const std::string& arg : eal.argv)
    eal_argv.push_back(const_cast<char*>(arg.c_str()));
  if (rte_eal_init(static_cast<int>(eal_argv.size()), eal_argv.data()) < 0) {
    std::fprintf(stderr, "braid: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  int status = 0;
  {
    // From here no log line blocks the thread that writes it (a stalled terminal, journald).
    braid::log::AsyncLog async_log;
    try {
      status = run(config, options, async_log);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "braid: %s\n", error.what());
      status = 1;
    }
  }
  rte_eal_cleanup();
  return status;
}
