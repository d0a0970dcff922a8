#include "control/metrics_server.hpp"

#include <httplib.h>

#include <charconv>
#include <chrono>

namespace braid::control {

ListenAddress parse_listen_address(const std::string& text) {
  if (text.empty() || text == "off") return {};
  std::string host;
  std::string port_text;
  if (text.front() == '[') {
    const std::size_t close = text.find("]:");
    if (close == std::string::npos)
      throw std::invalid_argument("expected [ipv6]:port, got \"" + text + "\"");
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("expected host:port, got \"" + text + "\"");
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  unsigned port = 0;
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    throw std::invalid_argument("bad port \"" + port_text + "\" in \"" + text + "\" (0..65535)");
  if (host.empty()) host = "0.0.0.0";
  return {host, static_cast<std::uint16_t>(port)};
}

MetricsServer::MetricsServer(const ListenAddress& address)
    : server_(std::make_unique<httplib::Server>()),
      text_(std::make_shared<const std::string>("")),
      host_(address.host),
      port_(address.port) {
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    std::shared_ptr<const std::string> text;
    {
      std::lock_guard lock(mutex_);
      text = text_;
    }
    response.set_content(*text, "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("braid: Prometheus metrics at /metrics\n", "text/plain");
  });
  if (!server_->bind_to_port(host_, port_))
    throw MetricsServerError("metrics: cannot listen on " + host_ + ":" + std::to_string(port_) +
                             " (in use, or not a local address); set metrics.listen");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

MetricsServer::~MetricsServer() {
  // httplib's stop() only reaches a server that is already listening: stopped before its thread
  // got there, listen would block forever (and braid with it, e.g. with --duration 0). Wait for
  // it, briefly; a thread that failed to listen has returned anyway.
  for (int waited_ms = 0; !server_->is_running() && waited_ms < 1000; ++waited_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

void MetricsServer::publish(std::string exposition_text) {
  auto text = std::make_shared<const std::string>(std::move(exposition_text));
  std::lock_guard lock(mutex_);
  text_ = std::move(text);
}

}  // namespace braid::control
