#include "control/control_plane.hpp"

#include <poll.h>
#include <pthread.h>
#include <rte_eal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "common/clock.hpp"
#include "control/console.hpp"
#include "control/control_socket.hpp"
#include "control/log_commands.hpp"
#include "control/metrics_server.hpp"
#include "control/packet_capture.hpp"
#include "control/socket_path.hpp"

namespace braid::control {
namespace {

// The management thread runs below the protocol loop: under CPU contention the kernel gives
// the loop with the deadlines the CPU first.
constexpr int kManagementNiceOffset = 10;
// It wakes at least this often (periodic jobs, timeouts).
constexpr std::uint64_t kMaxManagementNapNs = 100'000'000;

Reply render(const Request& request, const Output& out) {
  return {!out.failed(),
          request.mode == Request::Mode::kJson ? out.render_json() + "\n" : out.render_text()};
}

}  // namespace

ControlPlane::ControlPlane(ControlSettings settings, JobQueue& jobs)
    : settings_(std::move(settings)), jobs_(jobs) {
  register_builtin_commands();
  metrics_.add_collector([](MetricWriter& writer) {
    writer.family("braid_up", "1 while braid runs (the scrape reached a live protocol loop)",
                  MetricType::kGauge);
    writer.sample({}, std::uint64_t{1});
  });
}

ControlPlane::~ControlPlane() {
  stop();
}

void ControlPlane::every(std::string name, std::uint64_t period_ns, PeriodicTasks::Job job) {
  pending_jobs_.push_back({std::move(name), period_ns, std::move(job), true});
}

void ControlPlane::every_here(std::string name, std::uint64_t period_ns, PeriodicTasks::Job job) {
  pending_jobs_.push_back({std::move(name), period_ns, std::move(job), false});
}

void ControlPlane::add_http_live(std::string path, MetricsServer::Handler handler) {
  http_live_.emplace_back(std::move(path), std::move(handler));
}

void ControlPlane::add_http_rendered(std::string path, std::function<HttpAnswer()> render) {
  auto endpoint = std::make_shared<RenderedEndpoint>();
  endpoint->path = std::move(path);
  endpoint->render = std::move(render);
  http_rendered_.push_back(std::move(endpoint));
}

void ControlPlane::install_http_endpoints() {
  for (auto& [path, handler] : http_live_)
    metrics_server_->add_endpoint(path, std::move(handler));
  http_live_.clear();
  const std::uint64_t fresh_ns = settings_.fresh_render_ns;
  for (const auto& endpoint : http_rendered_) {
    // The endpoint owns its renders: what they publish into refers back to it plainly.
    endpoint->renders = std::make_shared<RenderOnDemand<HttpAnswer>>(
        "render " + endpoint->path, endpoint->render,
        [last = &endpoint->last](HttpAnswer&& answer, std::uint64_t) {
          *last = std::move(answer);
        });
    RenderOnDemand<HttpAnswer>& renders = *endpoint->renders;
    const auto answer = [endpoint, fresh_ns](std::uint64_t now_ns, std::uint64_t asked_ns) {
      const std::uint64_t rendered_ns = endpoint->renders->rendered_ns();
      if (rendered_ns != 0 && rendered_ns + fresh_ns >= asked_ns) return endpoint->last;
      char age[32];
      std::snprintf(age, sizeof age, "%.1f",
                    static_cast<double>(now_ns - std::min(now_ns, rendered_ns)) / 1e9);
      char waited[32];
      std::snprintf(waited, sizeof waited, "%.1f",
                    static_cast<double>(now_ns - std::min(now_ns, asked_ns)) / 1e9);
      return HttpAnswer{503, "stale: the protocol loop did not render " + endpoint->path +
                                 " in the " + waited + " s this request waited (last rendered " +
                                 age + " s ago; it is not running its jobs: see /healthz)\n"};
    };
    metrics_server_->add_endpoint(
        endpoint->path, answer, [this, &renders, fresh_ns](std::uint64_t, std::uint64_t asked_ns) {
          return renders.wait(jobs_, asked_ns, fresh_ns);
        });
  }
  metrics_renders_ = std::make_shared<RenderOnDemand<std::string>>(
      "render /metrics", [this] { return metrics_.render(); },
      [this](std::string&& text, std::uint64_t) { metrics_server_->publish(std::move(text)); });
  metrics_server_->set_metrics_wait([this, fresh_ns](std::uint64_t, std::uint64_t asked_ns) {
    return metrics_renders_->wait(jobs_, asked_ns, fresh_ns);
  });
}

void ControlPlane::register_builtin_commands() {
  registry_.add("quit", "stop braid (as Ctrl-C / SIGTERM do): workers drain, ports close",
                [this](const Args&, Output& out) {
                  request_quit();
                  out.line("stopping braid");
                });
  registry_.add(
      "show control",
      "the control socket, metrics, telemetry, and the protocol loop's lateness by deadline",
      [this](const Args&, Output& out) {
        out.value("file_prefix", settings_.file_prefix);
        out.value("socket", socket_ ? socket_->path() : std::string("off"));
        if (socket_) {
          const ControlSocketCounters& c = socket_->counters();
          out.value("socket_clients", c.clients.load());
          out.value("socket_requests", c.requests.load());
          out.value("socket_refused", c.refused.load());
          out.value("socket_evicted_idle", c.evicted_idle.load());
          out.value("socket_timed_out", c.timed_out.load());
          out.value("socket_over_limit", c.over_limit.load());
        }
        out.value("metrics", metrics_server_
                                 ? "http://" + metrics_server_->host() + ":" +
                                       std::to_string(metrics_server_->port()) + "/metrics"
                                 : std::string("off"));
        if (metrics_server_) {
          const MetricsServerCounters& h = metrics_server_->counters();
          out.value("http_served", h.served.load());
          out.value("http_evicted", h.evicted.load());
          out.value("http_refused", h.refused.load());
          out.value("http_header_timeouts", h.header_timeouts.load());
          out.value("http_write_timeouts", h.write_timeouts.load());
          out.value("http_bad_requests", h.bad_requests.load());
        }
        std::string paths;
        for (const std::string& path : telemetry_.paths())
          paths += (paths.empty() ? "" : " ") + path;
        out.value("telemetry", paths);
        // JSON: whether dpdk-dumpcap can attach; text: why not.
        out.value("pdump", capture_ ? Value::displayed(capture_->attachable(), capture_->status())
                                    : Value::displayed(false, "no (not started)"));
        out.value("jobs_waiting", std::uint64_t{jobs_.waiting()});
        out.value("console_timeouts", console_timeouts_.load());
        for (const auto& status : statuses_)
          status(out);
      });
  register_log_commands(registry_);
}

std::string ControlPlane::socket_path() const {
  return socket_ ? socket_->path() : "";
}

void ControlPlane::open(std::uint64_t now_ns) {
  if (opened_) return;
  opened_ = true;
  capture_ = std::make_unique<PacketCapture>();
  notes_.push_back(capture_->note());
  if (settings_.socket_path != "off") {
    const std::string path = settings_.socket_path.empty()
                                 ? default_socket_path(settings_.file_prefix)
                                 : settings_.socket_path;
    socket_ = std::make_unique<ControlSocket>(
        path, [this](const Request& request, ControlSocket::Respond respond) {
          submit(request, std::move(respond));
        });
    notes_.push_back("control socket " + path + " (braidctl --socket " + path + ")");
  }
  const ListenAddress address = parse_listen_address(settings_.metrics_listen);
  if (address.port != 0) {
    // A taken port must not stop a data plane from forwarding: say so loudly and go on.
    try {
      metrics_server_ = std::make_unique<MetricsServer>(address);
      install_http_endpoints();
      notes_.push_back("metrics http://" + address.host + ":" + std::to_string(address.port) +
                       "/metrics");
    } catch (const MetricsServerError& error) {
      notes_.push_back(std::string(error.what()) + "; metrics are off");
    }
  }
  for (auto& pending : pending_jobs_) {
    if (pending.on_protocol_loop) {
      auto job = std::make_shared<PeriodicTasks::Job>(std::move(pending.job));
      tasks_.add(pending.name, pending.period_ns, now_ns,
                 [this, job, name = pending.name](std::uint64_t) {
                   auto posted = std::make_unique<Job>();
                   posted->kind = name;
                   posted->work = [job] { (*job)(monotonic_ns()); };
                   jobs_.post(std::move(posted));  // full: this period is skipped
                 });
    } else {
      tasks_.add(pending.name, pending.period_ns, now_ns, std::move(pending.job));
    }
  }
  pending_jobs_.clear();
  for (const std::string& note : notes_)
    std::printf("%s\n", note.c_str());
  if (settings_.interactive)
    std::printf("console: \"help\" lists the commands; quit or Ctrl-D stops braid\n");
  std::fflush(stdout);
  if (settings_.interactive) {
    console_ = std::make_unique<Console>(
        registry_, [this](std::string_view line) { return run_console_line(line); });
  }
}

void ControlPlane::install_renders() {
  for (std::size_t i = 0; i < telemetry_.paths().size(); ++i) {
    const std::string& path = telemetry_.paths()[i];
    telemetry_renders_.push_back(std::make_shared<RenderOnDemand<TelemetryEndpoints::Rendered>>(
        "render telemetry", [this, i] { return telemetry_.render(i); },
        [path](TelemetryEndpoints::Rendered&& rendered, std::uint64_t rendered_ns) {
          TelemetryEndpoints::publish(path, std::move(rendered), rendered_ns);
        }));
  }
  // The first answers, before anyone asks: rendered here, the loop is not running yet.
  for (const auto& renders : telemetry_renders_)
    renders->render_here();
  if (metrics_server_) {
    metrics_renders_->render_here();
    for (const auto& endpoint : http_rendered_)
      endpoint->renders->render_here();
  }
  TelemetryEndpoints::listen_for_asks(&telemetry_asked_, settings_.fresh_render_ns);
}

void ControlPlane::render_asked_telemetry(std::uint64_t now_ns) {
  telemetry_asked_.drain();
  for (const auto& [path, asked_ns] : TelemetryEndpoints::take_asked()) {
    const auto known = std::find(telemetry_.paths().begin(), telemetry_.paths().end(), path);
    if (known == telemetry_.paths().end()) continue;
    const auto index = static_cast<std::size_t>(known - telemetry_.paths().begin());
    telemetry_renders_[index]->wait(jobs_, std::min(asked_ns, now_ns), settings_.fresh_render_ns);
  }
}

void ControlPlane::start() {
  if (thread_.joinable()) return;
  install_renders();
  thread_ = std::thread([this] { management_loop(); });
}

void ControlPlane::stop() {
  if (thread_.joinable()) {
    TelemetryEndpoints::listen_for_asks(nullptr, 0);
    stopping_.store(true, std::memory_order_release);
    stop_waker_.notify();
    thread_.join();
  }
  console_.reset();
  socket_.reset();
  metrics_server_.reset();
}

void ControlPlane::request_quit() {
  quit_.store(true, std::memory_order_release);
  if (on_quit_) on_quit_();
}

std::string eal_file_prefix() {
  const std::string runtime_dir = rte_eal_get_runtime_dir();
  const std::size_t slash = runtime_dir.rfind('/');
  return slash == std::string::npos ? runtime_dir : runtime_dir.substr(slash + 1);
}

void ControlPlane::submit(const Request& request, std::function<void(Reply)> respond) {
  auto out = std::make_shared<Output>();
  auto completions = std::make_shared<std::vector<std::string>>();
  auto job = std::make_unique<Job>();
  job->posted_ns = monotonic_ns();
  job->work = [this, request, out, completions] {
    if (request.mode == Request::Mode::kComplete) {
      *completions = registry_.complete(request.line);
    } else {
      registry_.execute(request.line, *out);
    }
  };
  job->done = [request, out, completions, respond] {
    if (request.mode != Request::Mode::kComplete) {
      respond(render(request, *out));
      return;
    }
    std::string body;
    for (const std::string& word : *completions)
      body += word + "\n";
    respond({true, body});
  };
  if (slow_reads_ != nullptr && request.mode != Request::Mode::kComplete &&
      registry_.reads_driver(request.line)) {
    job->kind = "driver read";
    if (!slow_reads_->post(std::move(job))) {
      respond({false, "braid is busy: too many driver reads waiting; try again\n"});
    }
    return;
  }
  if (!jobs_.post(std::move(job))) {
    respond({false, "braid is busy: the protocol loop has too many requests waiting; try again\n"});
  }
}

// The console's line editor calls this and prints what it returns: the management thread waits
// for the protocol loop here (serving nothing else meanwhile), at most console_timeout_ns.
std::string ControlPlane::run_console_line(std::string_view line) {
  auto reply = std::make_shared<std::optional<Reply>>();
  submit({Request::Mode::kText, std::string(line)}, [reply](Reply r) { *reply = std::move(r); });
  const std::uint64_t deadline = monotonic_ns() + settings_.console_timeout_ns;
  while (!reply->has_value()) {
    const std::uint64_t now = monotonic_ns();
    if (now >= deadline) {
      console_timeouts_.fetch_add(1);
      return "braid: the protocol loop did not run the command within " +
             std::to_string(settings_.console_timeout_ns / 1'000'000'000) +
             " s (it lacks CPU: see show control); it may still run\n";
    }
    pollfd ready[2] = {{jobs_.finished_fd(), POLLIN, 0},
                       {slow_reads_ != nullptr ? slow_reads_->finished_fd() : -1, POLLIN, 0}};
    ::poll(ready, 2,
           static_cast<int>(std::min<std::uint64_t>(deadline - now, 100'000'000) / 1'000'000) + 1);
    jobs_.collect();
    if (slow_reads_ != nullptr) slow_reads_->collect();
  }
  return (*reply)->body;
}

void ControlPlane::management_loop() {
  pthread_setname_np(pthread_self(), "braid-mgmt");
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0) ::setpriority(PRIO_PROCESS, tid, std::min(nice + kManagementNiceOffset, 19));
  std::vector<pollfd> fds;
  while (!stopping_.load(std::memory_order_acquire)) {
    const std::uint64_t now = monotonic_ns();
    std::uint64_t next = tasks_.run_due(now);
    render_asked_telemetry(now);
    jobs_.collect();
    if (slow_reads_ != nullptr) slow_reads_->collect();
    if (socket_) {
      socket_->poll(now);
      next = std::min(next, socket_->next_deadline_ns());
    }
    if (metrics_server_) {
      metrics_server_->poll(now);
      next = std::min(next, metrics_server_->next_deadline_ns());
    }
    if (console_ && !console_->poll()) {
      console_.reset();
      request_quit();  // Ctrl-D or end of input on the console ends braid, as quit does
    }
    fds.clear();
    fds.push_back({stop_waker_.fd(), POLLIN, 0});
    fds.push_back({jobs_.finished_fd(), POLLIN, 0});
    fds.push_back({telemetry_asked_.fd(), POLLIN, 0});
    if (slow_reads_ != nullptr) fds.push_back({slow_reads_->finished_fd(), POLLIN, 0});
    if (console_) fds.push_back({console_->fd(), POLLIN, 0});
    if (socket_) socket_->add_poll_fds(fds);
    if (metrics_server_) metrics_server_->add_poll_fds(fds);
    const std::uint64_t after = monotonic_ns();
    const std::uint64_t nap_ns = std::min(next > after ? next - after : 0, kMaxManagementNapNs);
    const int timeout_ms = static_cast<int>((nap_ns + 999'999) / 1'000'000);
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      // Nothing sensible to do but not spin: the next iteration reports real trouble.
    }
  }
  flush_last_replies();
}

// The reply to the command that ended braid (`quit`, `restart`) was on its way when the
// protocol loop stopped: it goes out before the socket closes (at most kLastRepliesNs, for a
// client that does not read).
void ControlPlane::flush_last_replies() {
  if (!socket_) return;
  std::vector<pollfd> fds;
  for (const std::uint64_t until = monotonic_ns() + kLastRepliesNs; monotonic_ns() < until;) {
    jobs_.collect();
    socket_->poll(monotonic_ns());
    if (!socket_->replies_pending()) return;
    fds.clear();
    socket_->add_poll_fds(fds);
    fds.push_back({jobs_.finished_fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), 10);
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
  return render(request, out);
}

std::string ControlPlane::run_text(std::string_view line) {
  Output out;
  registry_.execute(line, out);
  return out.render_text();
}

}  // namespace braid::control
