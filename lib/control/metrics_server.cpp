#include "control/metrics_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

namespace braid::control {
namespace {

constexpr std::size_t kReadChunk = 4096;
constexpr unsigned kAcceptsPerPoll = 64;
constexpr int kListenBacklog = 128;

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
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

std::string status_head(int status, std::string_view type, std::size_t length) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) +
         "\r\nContent-Type: " + std::string(type) +
         "\r\nContent-Length: " + std::to_string(length) + "\r\nConnection: close\r\n\r\n";
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

void MetricsServer::add_endpoint(std::string path, Handler handler) {
  endpoints_.emplace_back(std::move(path), std::move(handler));
}

void MetricsServer::add_poll_fds(std::vector<pollfd>& fds) const {
  fds.push_back({listen_fd_, POLLIN, 0});
  for (const Connection& connection : connections_) {
    fds.push_back({connection.fd, static_cast<short>(connection.response ? POLLOUT : POLLIN), 0});
  }
}

std::uint64_t MetricsServer::next_deadline_ns() const {
  std::uint64_t next = UINT64_MAX;
  for (const Connection& connection : connections_) {
    next = std::min(next, connection.response ? connection.answered_ns + kWriteTimeoutNs
                                              : connection.opened_ns + kHeaderTimeoutNs);
  }
  return next;
}

// The oldest connection still sending its request goes: a slow client loses its place, a
// scraper that sends its request at once never does.
bool MetricsServer::make_room() {
  auto oldest = connections_.end();
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (!it->response && (oldest == connections_.end() || it->opened_ns < oldest->opened_ns))
      oldest = it;
  }
  if (oldest == connections_.end()) return false;
  ::close(oldest->fd);
  connections_.erase(oldest);
  ++counters_.evicted;
  return true;
}

void MetricsServer::accept_connections(std::uint64_t now_ns) {
  for (unsigned accepted = 0; accepted < kAcceptsPerPoll; ++accepted) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: nobody else waiting
    if (connections_.size() >= kMaxConnections && !make_room()) {
      ::close(fd);  // every connection is being answered: this one tries again
      continue;
    }
    Connection connection;
    connection.fd = fd;
    connection.opened_ns = now_ns;
    connections_.push_back(std::move(connection));
    ++counters_.connections;
  }
}

void MetricsServer::answer(Connection& connection, std::uint64_t now_ns) {
  const std::size_t end = connection.request.find("\r\n\r\n");
  const std::string_view line(connection.request.data(),
                              std::min(connection.request.find("\r\n"), end));
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
                                     [&](const auto& entry) { return matches(entry.first); });
  std::string others;
  for (const auto& [served, handler] : endpoints_)
    others += ", " + served;
  const auto plain = [&connection](int status, std::string body) {
    connection.response = std::make_shared<const std::string>(std::move(body));
    connection.head = status_head(status, "text/plain", connection.response->size());
  };
  if (method != "GET" && method != "HEAD") {
    ++counters_.bad_requests;
    plain(405, "only GET and HEAD are served\n");
  } else if (matches("/metrics")) {
    connection.response = text_;
    connection.head =
        status_head(200, "text/plain; version=0.0.4; charset=utf-8", connection.response->size());
  } else if (endpoint != endpoints_.end()) {
    HttpAnswer answer = endpoint->second(now_ns);
    plain(answer.status, std::move(answer.body));
  } else if (path == "/") {
    plain(200, "braid: Prometheus metrics at /metrics" + others + "\n");
  } else {
    plain(404, "not found: try /metrics" + others + "\n");
  }
  connection.answered_ns = now_ns;
  connection.request.clear();
  ++counters_.served;
}

bool MetricsServer::serve(Connection& connection, std::uint64_t now_ns) {
  if (!connection.response) {
    char chunk[kReadChunk];
    while (true) {
      const ssize_t got = ::recv(connection.fd, chunk, sizeof chunk, 0);
      if (got == 0) return false;
      if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        return false;
      }
      connection.request.append(chunk, static_cast<std::size_t>(got));
      if (connection.request.size() > kMaxRequestBytes) {
        ++counters_.bad_requests;
        return false;
      }
    }
    if (connection.request.find("\r\n\r\n") == std::string::npos) {
      if (now_ns >= connection.opened_ns + kHeaderTimeoutNs) {
        ++counters_.header_timeouts;
        return false;
      }
      return true;
    }
    answer(connection, now_ns);
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
      if (now_ns >= connection.answered_ns + kWriteTimeoutNs) {
        ++counters_.write_timeouts;
        return false;
      }
      return true;
    }
    connection.written += static_cast<std::size_t>(sent);
  }
  return false;  // answered in full: Connection: close
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
