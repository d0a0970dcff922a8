#include "control/control_plane.hpp"

#include <poll.h>
#include <rte_eal.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "control/console.hpp"
#include "control/control_socket.hpp"
#include "control/log_commands.hpp"
#include "control/metrics_server.hpp"
#include "control/packet_capture.hpp"
#include "control/socket_path.hpp"

namespace braid::control {

ControlPlane::ControlPlane(ControlSettings settings) : settings_(std::move(settings)) {
  register_builtin_commands();
  metrics_.add_collector([](MetricWriter& writer) {
    writer.family("braid_up", "1 while braid runs (the scrape reached a live control thread)",
                  MetricType::kGauge);
    writer.sample({}, std::uint64_t{1});
  });
}

ControlPlane::~ControlPlane() = default;

void ControlPlane::every(std::string name, std::uint64_t period_ns, PeriodicTasks::Job job) {
  // Jobs added before start() count their first period from start(), on the loop's clock.
  if (!started_) {
    pending_jobs_.push_back({std::move(name), period_ns, std::move(job)});
    return;
  }
  tasks_.add(std::move(name), period_ns, last_now_ns_, std::move(job));
}

void ControlPlane::register_builtin_commands() {
  registry_.add("quit", "stop braid (as Ctrl-C / SIGTERM do): workers drain, ports close",
                [this](const Args&, Output& out) {
                  request_quit();
                  out.line("stopping braid");
                });
  registry_.add("show control", "where the control socket, metrics and telemetry are",
                [this](const Args&, Output& out) {
                  out.value("file_prefix", settings_.file_prefix);
                  out.value("socket", socket_ ? socket_->path() : std::string("off"));
                  out.value("socket_clients", std::uint64_t{socket_ ? socket_->client_count() : 0});
                  out.value("socket_refused", socket_ ? socket_->refused_count() : 0);
                  out.value("metrics", metrics_server_
                                           ? "http://" + metrics_server_->host() + ":" +
                                                 std::to_string(metrics_server_->port()) +
                                                 "/metrics"
                                           : std::string("off"));
                  std::string paths;
                  for (const std::string& path : telemetry_.paths())
                    paths += (paths.empty() ? "" : " ") + path;
                  out.value("telemetry", paths);
                  out.value("pdump", capture_ && capture_->enabled());
                });
  register_log_commands(registry_);
}

std::string ControlPlane::socket_path() const {
  return socket_ ? socket_->path() : "";
}

void ControlPlane::start(std::uint64_t now_ns) {
  if (started_) return;
  started_ = true;
  last_now_ns_ = now_ns;
  tasks_.add("snapshots", settings_.snapshot_period_ns, now_ns,
             [this](std::uint64_t) { publish_snapshots(); });
  for (auto& [name, period_ns, job] : pending_jobs_)
    tasks_.add(name, period_ns, now_ns, std::move(job));
  pending_jobs_.clear();

  capture_ = std::make_unique<PacketCapture>();
  notes_.push_back(capture_->note());
  if (settings_.socket_path != "off") {
    const std::string path = settings_.socket_path.empty()
                                 ? default_socket_path(settings_.file_prefix)
                                 : settings_.socket_path;
    socket_ = std::make_unique<ControlSocket>(
        path, [this](const Request& request) { return handle(request); });
    notes_.push_back("control socket " + path + " (braidctl --socket " + path + ")");
  }
  const ListenAddress address = parse_listen_address(settings_.metrics_listen);
  if (address.port != 0) {
    // A taken port must not stop a data plane from forwarding: say so loudly and go on.
    try {
      metrics_server_ = std::make_unique<MetricsServer>(address);
      notes_.push_back("metrics http://" + address.host + ":" + std::to_string(address.port) +
                       "/metrics");
    } catch (const MetricsServerError& error) {
      notes_.push_back(std::string(error.what()) + "; metrics are off");
    }
  }
  publish_snapshots();
  for (const std::string& note : notes_)
    std::printf("%s\n", note.c_str());
  if (settings_.interactive)
    std::printf("console: \"help\" lists the commands; quit or Ctrl-D stops braid\n");
  std::fflush(stdout);
  if (settings_.interactive) {
    console_ = std::make_unique<Console>(registry_,
                                         [this](std::string_view line) { return run_text(line); });
  }
}

void ControlPlane::stop() {
  console_.reset();
  socket_.reset();
  metrics_server_.reset();
}

std::string eal_file_prefix() {
  const std::string runtime_dir = rte_eal_get_runtime_dir();
  const std::size_t slash = runtime_dir.rfind('/');
  return slash == std::string::npos ? runtime_dir : runtime_dir.substr(slash + 1);
}

void ControlPlane::publish_snapshots() {
  telemetry_.refresh();
  if (metrics_server_) metrics_server_->publish(metrics_.render());
}

void ControlPlane::poll(std::uint64_t now_ns) {
  last_now_ns_ = now_ns;
  tasks_.run_due(now_ns);
  if (socket_) socket_->poll();
  if (console_ && !console_->poll()) {
    console_.reset();
    request_quit();  // Ctrl-D or end of input on the console ends braid, as quit does
  }
}

void ControlPlane::wait(std::uint64_t max_ns) {
  std::vector<pollfd> fds;
  if (console_) fds.push_back({console_->fd(), POLLIN, 0});
  if (socket_) socket_->add_poll_fds(fds);
  const int timeout_ms = static_cast<int>((max_ns + 999'999) / 1'000'000);
  if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
    // Nothing sensible to do but not spin: the next poll() call reports real trouble.
  }
}

Reply ControlPlane::handle(const Request& request) {
  if (request.mode == Request::Mode::kComplete) {
    std::string body;
    for (const std::string& word : registry_.complete(request.line))
      body += word + "\n";
    return {true, body};
  }
  Output out;
  registry_.execute(request.line, out);
  return {!out.failed(),
          request.mode == Request::Mode::kJson ? out.render_json() + "\n" : out.render_text()};
}

std::string ControlPlane::run_text(std::string_view line) {
  Output out;
  registry_.execute(line, out);
  return out.render_text();
}

}  // namespace braid::control
