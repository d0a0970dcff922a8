// The control plane: the command registry, the interactive console, the control socket, DPDK
// telemetry endpoints, Prometheus metrics and pdump. Management work, apart from the protocol
// loop (doc/architecture.md, "Threads"):
//   - its own thread (the management thread, niced below the protocol loop) does all the I/O:
//     the console, the socket's clients, HTTP scrapes, the stats line;
//   - everything that reads or changes engine state (every command, every metrics and telemetry
//     render, `every()` jobs) is posted as a job to the protocol loop (lib/common/job_queue.hpp),
//     which runs it between its deadlines; the reply is rendered and written back here.
//
//   ControlPlane control(settings, jobs);
//   engine::register_engine_commands(control, engine);   // each feature: its own file
//   control.open(now_ns);    // socket, metrics port, console: fails before "forwarding"
//   control.start();         // the management thread
//   protocol_loop.run();     // until quit
//   control.stop();
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/job_queue.hpp"
#include "common/periodic_tasks.hpp"
#include "common/waker.hpp"
#include "control/command_registry.hpp"
#include "control/frame.hpp"
#include "control/metrics_registry.hpp"
#include "control/metrics_server.hpp"
#include "control/telemetry_endpoints.hpp"

namespace braid::control {

class Console;
class ControlSocket;
class PacketCapture;

// The EAL file prefix in effect (from the runtime directory, so `-- --file-prefix=x` counts).
std::string eal_file_prefix();

struct ControlSettings {
  std::string file_prefix = "braid";
  bool interactive = false;  // braid -i
  std::string socket_path;   // "" -> default_socket_path(file_prefix); "off" -> none
  std::string metrics_listen = "127.0.0.1:9464";   // "" / "off" / port 0 -> none
  std::uint64_t snapshot_period_ns = 500'000'000;  // telemetry and /metrics refresh
  // A snapshot HTTP answer (/readyz) older than this is not served: 503, "stale".
  std::uint64_t stale_snapshot_ns = 5'000'000'000;
  // How long the console waits for the protocol loop to run a command.
  std::uint64_t console_timeout_ns = 10'000'000'000;
};

class ControlPlane {
 public:
  ControlPlane(ControlSettings settings, JobQueue& jobs);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  CommandRegistry& commands() { return registry_; }
  TelemetryEndpoints& telemetry() { return telemetry_; }
  MetricsRegistry& metrics() { return metrics_; }
  // A job on the protocol loop every `period_ns` (rate samplers, feature ticks).
  void every(std::string name, std::uint64_t period_ns, PeriodicTasks::Job job);
  // A job on the management thread itself, for work that reads only what any thread may (the
  // workers' counters) and may block (printing the stats line to a slow terminal).
  void every_here(std::string name, std::uint64_t period_ns, PeriodicTasks::Job job);
  // A path next to /metrics answered on the management thread at each request, from what any
  // thread may read (relaxed atomics, never engine state): /healthz. Before open().
  void add_http_live(std::string path, MetricsServer::Handler handler);
  // A path whose answer the protocol loop renders with each /metrics snapshot (it may read
  // engine state); a request gets the last one, or 503 once that is older than
  // stale_snapshot_ns (the loop is not running its jobs): /readyz. Before open().
  void add_http_snapshot(std::string path, std::function<HttpAnswer()> render);
  // More lines for `show control` (the protocol loop's lateness; engine_commands).
  void add_status(std::function<void(Output&)> status) { statuses_.push_back(std::move(status)); }
  // Called when `quit` (or Ctrl-D on the console) asks braid to stop.
  void on_quit(std::function<void()> callback) { on_quit_ = std::move(callback); }

  // On the calling thread, before forwarding starts: the socket (throws, with what to do, when
  // it cannot be used: braid then stops before it prints "forwarding"), the metrics listener
  // (a port in use is a note, metrics off, not fatal), pdump and the console.
  void open(std::uint64_t now_ns);
  // The management thread.
  void start();
  // Stops the management thread and closes the console (restoring the terminal), the socket
  // and the metrics listener: called when the protocol loop ends, before the engine stops.
  void stop();

  void request_quit();
  bool quit_requested() const { return quit_.load(std::memory_order_acquire); }

  // Runs one request synchronously on the calling thread, which must be the protocol loop (or
  // a test that plays it).
  Reply handle(const Request& request);
  std::string run_text(std::string_view line);
  const std::vector<std::string>& notes() const { return notes_; }  // what open() set up
  std::string socket_path() const;

 private:
  void register_builtin_commands();
  void management_loop();
  void post_snapshot();
  // Management thread: a request for the protocol loop; `respond` runs here when it is done.
  void submit(const Request& request, std::function<void(Reply)> respond);
  std::string run_console_line(std::string_view line);

  ControlSettings settings_;
  JobQueue& jobs_;
  CommandRegistry registry_;
  TelemetryEndpoints telemetry_;
  MetricsRegistry metrics_;
  PeriodicTasks tasks_;  // on the management thread
  std::unique_ptr<Console> console_;
  std::unique_ptr<ControlSocket> socket_;
  std::unique_ptr<MetricsServer> metrics_server_;
  std::unique_ptr<PacketCapture> capture_;
  struct PendingJob {
    std::string name;
    std::uint64_t period_ns;
    PeriodicTasks::Job job;
    bool on_protocol_loop;
  };
  std::vector<PendingJob> pending_jobs_;
  struct SnapshotEndpoint {
    std::string path;
    std::function<HttpAnswer()> render;  // protocol loop
    HttpAnswer last;                     // management thread, once published
    std::uint64_t rendered_ns = 0;       // 0: not yet
  };
  void install_http_endpoints();
  std::vector<std::pair<std::string, MetricsServer::Handler>> http_live_;
  std::vector<std::shared_ptr<SnapshotEndpoint>> http_snapshots_;
  std::vector<std::function<void(Output&)>> statuses_;
  std::function<void()> on_quit_;
  std::vector<std::string> notes_;
  std::thread thread_;
  Waker stop_waker_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> quit_{false};
  std::atomic<std::uint64_t> snapshot_in_flight_{0};
  std::atomic<std::uint64_t> console_timeouts_{0};
  bool opened_ = false;
};

}  // namespace braid::control
