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
#include "common/slow_reads.hpp"
#include "common/waker.hpp"
#include "control/command_registry.hpp"
#include "control/frame.hpp"
#include "control/metrics_registry.hpp"
#include "control/metrics_server.hpp"
#include "control/render_on_demand.hpp"
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
  std::string metrics_listen = "127.0.0.1:9464";  // "" / "off" / port 0 -> none
  // A render of /metrics, /readyz or a telemetry endpoint that began at most this long before
  // a request is served without a new one (control/render_on_demand.hpp).
  std::uint64_t fresh_render_ns = 500'000'000;
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
  // A path whose answer the protocol loop renders when a request asks for it (it may read
  // engine state): the request waits for that render, or gets 503 "stale" when the loop does
  // not render it within MetricsServer::kRenderWaitNs (it is not running its jobs): /readyz.
  // Before open().
  void add_http_rendered(std::string path, std::function<HttpAnswer()> render);
  // More lines for `show control` (the protocol loop's lateness; engine_commands).
  void add_status(std::function<void(Output&)> status) { statuses_.push_back(std::move(status)); }
  // Commands that only read the driver (CommandRegistry's ReadsDriver) run here, off the
  // protocol loop (none set: on the loop like the rest). Before start().
  void set_slow_reads(SlowReads* reads) { slow_reads_ = reads; }
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
  void flush_last_replies();
  static constexpr std::uint64_t kLastRepliesNs = 200'000'000;
  void management_loop();
  // Renders everything once on the calling thread before the loop runs; then wires each
  // endpoint to render on demand.
  void install_renders();
  void render_asked_telemetry(std::uint64_t now_ns);
  // Management thread: a request for the protocol loop; `respond` runs here when it is done.
  void submit(const Request& request, std::function<void(Reply)> respond);
  std::string run_console_line(std::string_view line);

  ControlSettings settings_;
  JobQueue& jobs_;
  SlowReads* slow_reads_ = nullptr;
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
  struct RenderedEndpoint {
    std::string path;
    std::function<HttpAnswer()> render;  // protocol loop
    HttpAnswer last;                     // management thread, once published
    std::shared_ptr<RenderOnDemand<HttpAnswer>> renders;
  };
  void install_http_endpoints();
  std::vector<std::pair<std::string, MetricsServer::Handler>> http_live_;
  std::vector<std::shared_ptr<RenderedEndpoint>> http_rendered_;
  std::shared_ptr<RenderOnDemand<std::string>> metrics_renders_;
  // One per telemetry_.paths() entry.
  std::vector<std::shared_ptr<RenderOnDemand<TelemetryEndpoints::Rendered>>> telemetry_renders_;
  Waker telemetry_asked_;  // the telemetry thread asked for a render
  std::vector<std::function<void(Output&)>> statuses_;
  std::function<void()> on_quit_;
  std::vector<std::string> notes_;
  std::thread thread_;
  Waker stop_waker_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> quit_{false};
  std::atomic<std::uint64_t> console_timeouts_{0};
  bool opened_ = false;
};

}  // namespace braid::control
