// The control plane's home on the control thread: the command registry, the interactive
// console, the control socket, DPDK telemetry endpoints, Prometheus metrics and pdump. Features
// register into it and the control loop calls poll()/wait():
//
//   ControlPlane control(settings);
//   engine::register_engine_commands(control, engine);   // each feature: its own file
//   control.start(now_ns);
//   while (!control.quit_requested()) { control.poll(now_ns); control.wait(nap_ns); }
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/periodic_tasks.hpp"
#include "control/command_registry.hpp"
#include "control/frame.hpp"
#include "control/metrics_registry.hpp"
#include "control/telemetry_endpoints.hpp"

namespace braid::control {

class Console;
class ControlSocket;
class MetricsServer;
class PacketCapture;

// The EAL file prefix in effect (from the runtime directory, so `-- --file-prefix=x` counts).
std::string eal_file_prefix();

struct ControlSettings {
  std::string file_prefix = "braid";
  bool interactive = false;  // braid -i
  std::string socket_path;   // "" -> default_socket_path(file_prefix); "off" -> none
  std::string metrics_listen = "127.0.0.1:9464";   // "" / "off" / port 0 -> none
  std::uint64_t snapshot_period_ns = 500'000'000;  // telemetry and /metrics refresh
};

class ControlPlane {
 public:
  explicit ControlPlane(ControlSettings settings);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  CommandRegistry& commands() { return registry_; }
  TelemetryEndpoints& telemetry() { return telemetry_; }
  MetricsRegistry& metrics() { return metrics_; }
  // Periodic control-thread jobs (rate samplers, feature ticks); run from poll().
  void every(std::string name, std::uint64_t period_ns, PeriodicTasks::Job job);

  // Opens the socket, the console, the metrics listener and pdump. Throws (with what to do) when
  // the socket cannot be used; a metrics address in use is a note (metrics off), not fatal.
  void start(std::uint64_t now_ns);
  // Closes the console (restoring the terminal), the socket and the metrics listener: called
  // when the control loop ends, before the engine stops.
  void stop();
  // Serves console and socket input and runs due jobs; never blocks.
  void poll(std::uint64_t now_ns);
  // Sleeps up to `max_ns`, waking early when the console or the socket has input.
  void wait(std::uint64_t max_ns);

  void request_quit() { quit_ = true; }
  bool quit_requested() const { return quit_; }

  // Runs one command line as the console and the socket do.
  Reply handle(const Request& request);
  std::string run_text(std::string_view line);
  const std::vector<std::string>& notes() const { return notes_; }  // what start() set up
  std::string socket_path() const;

 private:
  void register_builtin_commands();
  void publish_snapshots();

  ControlSettings settings_;
  CommandRegistry registry_;
  TelemetryEndpoints telemetry_;
  MetricsRegistry metrics_;
  PeriodicTasks tasks_;
  std::unique_ptr<Console> console_;
  std::unique_ptr<ControlSocket> socket_;
  std::unique_ptr<MetricsServer> metrics_server_;
  std::unique_ptr<PacketCapture> capture_;
  struct PendingJob {
    std::string name;
    std::uint64_t period_ns;
    PeriodicTasks::Job job;
  };
  std::vector<PendingJob> pending_jobs_;
  std::uint64_t last_now_ns_ = 0;
  std::vector<std::string> notes_;
  bool quit_ = false;
  bool started_ = false;
};

}  // namespace braid::control
