// The Prometheus endpoint: GET /metrics over HTTP (cpp-httplib) on its own thread. It serves
// the last text the control thread published and nothing else, so a scrape never touches the
// engine and a slow scraper never delays the control loop.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace braid::control {

class MetricsServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ListenAddress {
  std::string host;
  std::uint16_t port = 0;  // 0: metrics off
};

// "127.0.0.1:9464", "[::1]:9464", ":9464" (all interfaces, stated explicitly), "off" or
// "" (off). Throws std::invalid_argument with what is wrong.
ListenAddress parse_listen_address(const std::string& text);

class MetricsServer {
 public:
  // Binds at once (so a taken port is reported at start-up) and serves on a thread.
  explicit MetricsServer(const ListenAddress& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  void publish(std::string exposition_text);
  std::uint16_t port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::mutex mutex_;
  std::shared_ptr<const std::string> text_;
  std::string host_;
  std::uint16_t port_ = 0;
};

}  // namespace braid::control
