#include "control/metrics_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <utility>

namespace braid::control {
namespace {

constexpr std::size_t kReadChunk = 4096;
constexpr unsigned kAcceptsPerPoll = 64;
constexpr int kListenBacklog = 128;
constexpr int kNever = 5;  // make_room's rank of a connection it must not close

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

// `extra`: more header lines, each ending in CRLF.
std::string status_head(int status, std::string_view type, std::size_t length,
                        std::string_view extra = {}) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) +
         "\r\nContent-Type: " + std::string(type) +
         "\r\nContent-Length: " + std::to_string(length) + "\r\n" + std::string(extra) +
         "Connection: close\r\n\r\n";
}

// Just past the empty line that ends the request's header section, or npos. Bare LF line ends
// are accepted as well as CRLF (RFC 9112 2.2).
std::size_t header_end(std::string_view request) {
  for (std::size_t at = request.find('\n'); at != std::string_view::npos;
       at = request.find('\n', at + 1)) {
    if (at + 1 < request.size() && request[at + 1] == '\n') return at + 2;
    if (at + 2 < request.size() && request[at + 1] == '\r' && request[at + 2] == '\n')
      return at + 3;
  }
  return std::string_view::npos;
}

std::string numeric_host(const sockaddr_storage& address, socklen_t length) {
  char host[NI_MAXHOST] = "";
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host, sizeof host, nullptr,
                    0, NI_NUMERICHOST) != 0)
    return "?";
  return host;
}

}  // namespace

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
    : host_(address.host), port_(address.port), text_(std::make_shared<const std::string>("")) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port_);
  if (const int rc = ::getaddrinfo(host_.c_str(), service.c_str(), &hints, &found); rc != 0) {
    throw MetricsServerError("metrics: cannot listen on " + host_ + ":" + service + " (" +
                             ::gai_strerror(rc) + "); set metrics.listen");
  }
  std::string error = "no address";
  for (const addrinfo* at = found; at != nullptr && listen_fd_ < 0; at = at->ai_next) {
    const int fd = ::socket(at->ai_family, at->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, at->ai_addr, at->ai_addrlen) != 0 || ::listen(fd, kListenBacklog) != 0) {
      error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) {
    throw MetricsServerError("metrics: cannot listen on " + host_ + ":" + service + " (" + error +
                             ": in use, or not a local address); set metrics.listen");
  }
}

MetricsServer::~MetricsServer() {
  for (const Connection& connection : connections_)
    ::close(connection.fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void MetricsServer::publish(std::string exposition_text) {
  text_ = std::make_shared<const std::string>(std::move(exposition_text));
}

void MetricsServer::add_endpoint(std::string path, Handler handler, Wait wait) {
  endpoints_.push_back({std::move(path), std::move(handler), std::move(wait)});
}

void MetricsServer::add_poll_fds(std::vector<pollfd>& fds) const {
  fds.push_back({listen_fd_, POLLIN, 0});
  for (const Connection& connection : connections_) {
    const bool writing = connection.response && connection.lingering_ns == 0;
    // A request waiting for a render reads nothing more until it is answered (what the client
    // sends after its request stays unread: the linger reads it): woken by its deadline or the
    // render coming back, not by the client's bytes.
    const short events = connection.asked_ns != 0 ? 0 : writing ? POLLOUT : POLLIN;
    fds.push_back({connection.fd, events, 0});
  }
}

std::uint64_t MetricsServer::next_deadline_ns() const {
  std::uint64_t next = UINT64_MAX;
  for (const Connection& connection : connections_) {
    next = std::min(next, connection.lingering_ns != 0 ? connection.lingering_ns + kLingerNs
                          : connection.response        ? connection.progress_ns + kWriteStallNs
                          : connection.asked_ns != 0   ? connection.asked_ns + kRenderWaitNs
                                                       : connection.opened_ns + kHeaderTimeoutNs);
  }
  return next;
}

// Which connection makes room first (lower goes first): one that is done and only waits for its
// client to close; one still sending its request after kRequestGraceNs, the oldest first (a
// slowloris); an answered one whose client has read nothing for kRequestGraceNs, the one that
// read least first (a client that does not read); one still sending its request after
// kArrivalGraceNs, the oldest first. Only for a newcomer whose request is whole (read at
// accept), after those: one younger than kArrivalGraceNs still sending its request, oldest first
// (its request may be on its way: evicting the oldest newcomer first let a burst of 64 newcomers
// in one poll close a scrape accepted a poll earlier whose request had not arrived yet), then an
// answer its client is reading, the least read first. Never a whole request waiting (at most
// kRenderWaitNs) for its render. A client that did everything right is never closed for one
// that has not: when only those are left, the newcomer is the one refused.
bool MetricsServer::make_room(const Connection& newcomer, bool only_its_peer,
                              std::uint64_t now_ns) {
  const bool whole_request = newcomer.response || newcomer.asked_ns != 0;
  const auto rank = [now_ns, whole_request](const Connection& c) -> std::pair<int, std::uint64_t> {
    if (c.lingering_ns != 0) return {0, c.lingering_ns};
    if (c.asked_ns != 0) return {kNever, c.opened_ns};
    if (!c.response) {
      const std::uint64_t age = now_ns - c.opened_ns;
      return {age >= kRequestGraceNs                    ? 1
              : age >= kArrivalGraceNs || whole_request ? 3
                                                        : kNever,
              c.opened_ns};
    }
    return {now_ns - c.progress_ns >= kRequestGraceNs ? 2 : whole_request ? 4 : kNever, c.written};
  };
  auto victim = connections_.end();
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (&*it == &newcomer || (only_its_peer && it->peer != newcomer.peer)) continue;
    if (rank(*it).first == kNever) continue;
    if (victim == connections_.end() || rank(*it) < rank(*victim)) victim = it;
  }
  if (victim == connections_.end()) return false;
  ::close(victim->fd);
  connections_.erase(victim);
  counters_.evicted.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void MetricsServer::accept_connections(std::uint64_t now_ns) {
  for (unsigned accepted = 0; accepted < kAcceptsPerPoll; ++accepted) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: nobody else waiting
    Connection connection;
    connection.fd = fd;
    connection.peer = numeric_host(address, length);
    connection.opened_ns = now_ns;
    counters_.connections.fetch_add(1, std::memory_order_relaxed);
    // Its request is often here already (it waited in the backlog): read it first, so a whole
    // request can claim a slot a newcomer still sending could not.
    connections_.push_back(std::move(connection));
    if (!serve(connections_.back(), now_ns)) {
      ::close(fd);
      connections_.pop_back();
      continue;
    }
    const Connection& newcomer = connections_.back();
    const auto from_peer = static_cast<std::size_t>(
        std::count_if(connections_.begin(), connections_.end(),
                      [&](const Connection& c) { return c.peer == newcomer.peer; }));
    const bool room = from_peer > kMaxPerPeer                 ? make_room(newcomer, true, now_ns)
                      : connections_.size() > kMaxConnections ? make_room(newcomer, false, now_ns)
                                                              : true;
    if (!room) {
      counters_.refused.fetch_add(1, std::memory_order_relaxed);
      ::close(fd);
      connections_.pop_back();
    }
  }
}

bool MetricsServer::answer(Connection& connection, std::uint64_t now_ns) {
  const std::string_view request(connection.request);
  std::string_view line = request.substr(0, request.find('\n'));
  if (line.ends_with('\r')) line.remove_suffix(1);
  const std::size_t method_end = line.find(' ');
  const std::size_t path_end = line.find(' ', method_end + 1);
  const std::string_view method = line.substr(0, method_end);
  const std::string_view path = method_end == std::string_view::npos
                                    ? std::string_view()
                                    : line.substr(method_end + 1, path_end == std::string_view::npos
                                                                      ? std::string_view::npos
                                                                      : path_end - method_end - 1);
  connection.with_body = method != "HEAD";
  const auto matches = [&path](std::string_view served) {
    return path == served || (path.starts_with(served) && path[served.size()] == '?');
  };
  const auto endpoint = std::find_if(endpoints_.begin(), endpoints_.end(),
                                     [&](const Endpoint& entry) { return matches(entry.path); });
  const bool is_get = method == "GET" || method == "HEAD";
  const Wait* wait = !is_get                        ? nullptr
                     : matches("/metrics")          ? &metrics_wait_
                     : endpoint != endpoints_.end() ? &endpoint->wait
                                                    : nullptr;
  const std::uint64_t asked_ns = connection.asked_ns != 0 ? connection.asked_ns : now_ns;
  if (wait != nullptr && *wait && now_ns < asked_ns + kRenderWaitNs && (*wait)(now_ns, asked_ns)) {
    connection.asked_ns = asked_ns;
    return false;
  }
  connection.asked_ns = 0;
  std::string others;
  for (const Endpoint& served : endpoints_)
    others += ", " + served.path;
  const auto plain = [&connection](int status, std::string body, std::string_view extra = {}) {
    connection.response = std::make_shared<const std::string>(std::move(body));
    connection.head = status_head(status, "text/plain", connection.response->size(), extra);
  };
  if (!is_get) {
    counters_.bad_requests.fetch_add(1, std::memory_order_relaxed);
    plain(405, "only GET and HEAD are served\n", "Allow: GET, HEAD\r\n");
  } else if (matches("/metrics")) {
    connection.response = text_;
    connection.head =
        status_head(200, "text/plain; version=0.0.4; charset=utf-8", connection.response->size());
  } else if (endpoint != endpoints_.end()) {
    HttpAnswer answer = endpoint->handler(now_ns, asked_ns);
    plain(answer.status, std::move(answer.body));
  } else if (path == "/") {
    plain(200, "braid: Prometheus metrics at /metrics" + others + "\n");
  } else {
    plain(404, "not found: try /metrics" + others + "\n");
  }
  connection.progress_ns = now_ns;
  connection.request.clear();
  counters_.served.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Reads until the header section is complete (what follows it stays unread: the linger reads
// it) and answers it; the client may half-close after its request.
bool MetricsServer::read_request(Connection& connection, std::uint64_t now_ns) {
  char chunk[kReadChunk];
  while (!connection.peer_done && header_end(connection.request) == std::string_view::npos) {
    const ssize_t got = ::recv(connection.fd, chunk, sizeof chunk, 0);
    if (got == 0) {
      connection.peer_done = true;
    } else if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
      return false;
    } else {
      connection.request.append(chunk, static_cast<std::size_t>(got));
      if (connection.request.size() > kMaxRequestBytes &&
          header_end(connection.request) == std::string_view::npos) {
        counters_.bad_requests.fetch_add(1, std::memory_order_relaxed);
        connection.response = std::make_shared<const std::string>(
            "request headers over " + std::to_string(kMaxRequestBytes) + " bytes\n");
        connection.head = status_head(400, "text/plain", connection.response->size());
        connection.progress_ns = now_ns;
        return true;
      }
    }
  }
  if (header_end(connection.request) == std::string_view::npos) {
    if (connection.peer_done) return false;  // it gave up before its request was complete
    if (now_ns >= connection.opened_ns + kHeaderTimeoutNs) {
      counters_.header_timeouts.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    return true;
  }
  answer(connection, now_ns);
  return true;
}

// Answered and half-closed: whatever the client still sends is read and dropped until it
// closes, so closing never finds unread bytes (which would reset the connection and discard
// the end of the answer on its way).
bool MetricsServer::linger(Connection& connection, std::uint64_t now_ns) {
  char chunk[kReadChunk];
  for (int chunks = 0; chunks < 16; ++chunks) {
    const ssize_t got = ::recv(connection.fd, chunk, sizeof chunk, 0);
    if (got == 0) return false;
    if (got < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
      break;
    }
  }
  return now_ns < connection.lingering_ns + kLingerNs;
}

bool MetricsServer::serve(Connection& connection, std::uint64_t now_ns) {
  if (connection.lingering_ns != 0) return linger(connection, now_ns);
  if (!connection.response) {
    if (!read_request(connection, now_ns)) return false;
    if (!connection.response) return true;
  }
  const std::size_t body = connection.with_body ? connection.response->size() : 0;
  while (connection.written < connection.head.size() + body) {
    const bool in_head = connection.written < connection.head.size();
    const char* data =
        in_head ? connection.head.data() + connection.written
                : connection.response->data() + (connection.written - connection.head.size());
    const std::size_t left = in_head ? connection.head.size() - connection.written
                                     : connection.head.size() + body - connection.written;
    const ssize_t sent = ::send(connection.fd, data, left, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
      if (now_ns >= connection.progress_ns + kWriteStallNs) {
        counters_.write_timeouts.fetch_add(1, std::memory_order_relaxed);
        return false;
      }
      return true;
    }
    connection.written += static_cast<std::size_t>(sent);
    connection.progress_ns = now_ns;
  }
  // Answered in full (Connection: close): the FIN follows the answer; wait for the client's.
  ::shutdown(connection.fd, SHUT_WR);
  connection.lingering_ns = now_ns;
  return linger(connection, now_ns);
}

void MetricsServer::poll(std::uint64_t now_ns) {
  accept_connections(now_ns);
  std::erase_if(connections_, [&](Connection& connection) {
    if (serve(connection, now_ns)) return false;
    ::close(connection.fd);
    return true;
  });
}

}  // namespace braid::control
