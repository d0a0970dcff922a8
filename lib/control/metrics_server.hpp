// The Prometheus endpoint: GET /metrics over HTTP/1.1, served by the management thread's event
// loop (non-blocking sockets, no thread per connection). It answers with the last text the
// protocol loop rendered and nothing else, so a scrape never touches the engine. Other paths
// (/healthz, /readyz) are answered by handlers a feature adds, on this same thread. A path may
// make its request wait (at most kRenderWaitNs, the connection parked, nothing blocks) until
// the protocol loop has rendered something newer for it (control/render_on_demand.hpp). Slow or
// hostile clients cost nothing: a connection must deliver its request headers within
// kHeaderTimeoutNs, keep reading its answer (no progress for kWriteStallNs closes it), a request
// is at most kMaxRequestBytes, and a newcomer finds a slot: with kMaxConnections open (or
// kMaxPerPeer from its address) one is closed for it, first a finished one lingering for its
// client's close, then one sending its request for longer than kRequestGraceNs (slowloris), then
// the answered one that has read the least of its answer (a client that never reads), then one
// still sending its request; one younger than kArrivalGraceNs still sending, or one reading its
// answer, goes only for a newcomer whose request is whole (read at accept), and a whole request
// waiting for its render never (only when every slot is one of those is the newcomer refused),
// so neither 500
// slowloris connections nor 128 scrapers that never read can keep the kubelet's probe out. After
// an answer braid half-closes and reads what the client still sends until it closes (at most
// kLingerNs), so bytes it sent late do not turn the close into a reset that would discard the end
// of the answer. (cpp-httplib, used
// before, gives every connection a pool thread for as long as it dribbles bytes: eight slow clients
// stopped every scrape.)
#pragma once

#include <poll.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

// Readable from any thread (`show control`).
struct MetricsServerCounters {
  std::atomic<std::uint64_t> connections{0};  // accepted
  std::atomic<std::uint64_t> served{0};       // answered (any status)
  std::atomic<std::uint64_t> header_timeouts{0};
  std::atomic<std::uint64_t> write_timeouts{0};  // the client stopped reading its answer
  std::atomic<std::uint64_t> evicted{0};         // closed to make room for a newer connection
  // New connections without a whole request closed at once: every slot (of their address) was a
  // request just arriving, an answer being read or a request waiting for its render.
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> bad_requests{0};  // malformed, too large, or not GET/HEAD
};

// A plain-text answer to GET <path> (status 200 or 503, say).
struct HttpAnswer {
  int status = 200;
  std::string body;
};

class MetricsServer {
 public:
  // Runs on the management thread for each request of its path: reads only what any thread may
  // (a published snapshot, relaxed atomics), never engine state. `asked_ns`: when the request
  // was complete (before any wait).
  using Handler = std::function<HttpAnswer(std::uint64_t now_ns, std::uint64_t asked_ns)>;
  // True while a request complete at `asked_ns` should wait for a newer answer (asked again on
  // each poll(), until kRenderWaitNs has passed).
  using Wait = std::function<bool(std::uint64_t now_ns, std::uint64_t asked_ns)>;

  static constexpr std::size_t kMaxConnections = 128;
  static constexpr std::size_t kMaxPerPeer = 64;  // one address cannot take every slot
  static constexpr std::size_t kMaxRequestBytes = 8192;
  static constexpr std::uint64_t kHeaderTimeoutNs = 2'000'000'000;
  static constexpr std::uint64_t kRequestGraceNs = 100'000'000;
  // A connection this young still sending its request is never closed for a newcomer: its
  // request may be on its way.
  static constexpr std::uint64_t kArrivalGraceNs = 50'000'000;
  static constexpr std::uint64_t kWriteStallNs = 2'000'000'000;
  static constexpr std::uint64_t kLingerNs = 2'000'000'000;
  static constexpr std::uint64_t kRenderWaitNs = 500'000'000;

  // Binds at once, so a port in use is reported at start-up (SO_REUSEADDR only: a second braid
  // on the same port fails instead of sharing it, as SO_REUSEPORT would let it).
  explicit MetricsServer(const ListenAddress& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  void publish(std::string exposition_text);
  // A /metrics request waits while `wait` says so (the text published is then served).
  void set_metrics_wait(Wait wait) { metrics_wait_ = std::move(wait); }
  // GET `path` (exact, or followed by '?') answers what `handler` returns, once `wait` (if
  // any) lets it.
  void add_endpoint(std::string path, Handler handler, Wait wait = {});
  // The event loop's side: descriptors to wait on, and the work when any is ready (or a
  // timeout is due).
  void add_poll_fds(std::vector<pollfd>& fds) const;
  void poll(std::uint64_t now_ns);
  // When the next connection times out (UINT64_MAX: none open).
  std::uint64_t next_deadline_ns() const;

  std::uint16_t port() const { return port_; }
  const std::string& host() const { return host_; }
  std::size_t open_connections() const { return connections_.size(); }
  const MetricsServerCounters& counters() const { return counters_; }

 private:
  struct Connection {
    int fd = -1;
    std::string peer;  // the client's address, without its port
    std::uint64_t opened_ns = 0;
    std::string request;                          // bytes received so far
    std::shared_ptr<const std::string> response;  // once answered
    std::string head;                             // status line and headers
    std::size_t written = 0;                      // of head + body
    bool with_body = true;
    bool peer_done = false;          // the client half-closed after its request
    std::uint64_t progress_ns = 0;   // the answer's last bytes out
    std::uint64_t lingering_ns = 0;  // answered in full, half-closed: waiting for its close
    std::uint64_t asked_ns = 0;      // request complete, waiting for a render (0: not waiting)
  };
  struct Endpoint {
    std::string path;
    Handler handler;
    Wait wait;
  };
  void accept_connections(std::uint64_t now_ns);
  bool read_request(Connection& connection, std::uint64_t now_ns);  // false: close it
  bool serve(Connection& connection, std::uint64_t now_ns);         // false: close it
  bool linger(Connection& connection, std::uint64_t now_ns);        // false: close it
  // False while the request waits for a render (see Wait).
  bool answer(Connection& connection, std::uint64_t now_ns);
  // Closes one connection other than `newcomer` (the last one, already read), any or only one from
  // its address, to make room for it; false when none may be closed (the newcomer is refused).
  bool make_room(const Connection& newcomer, bool only_its_peer, std::uint64_t now_ns);

  int listen_fd_ = -1;
  std::string host_;
  std::uint16_t port_ = 0;
  std::shared_ptr<const std::string> text_;
  Wait metrics_wait_;
  std::vector<Endpoint> endpoints_;
  std::vector<Connection> connections_;
  MetricsServerCounters counters_;
};

}  // namespace braid::control
