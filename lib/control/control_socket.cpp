#include "control/control_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "control/peer_policy.hpp"

namespace braid::control {
namespace {

constexpr std::size_t kReadChunk = 4096;

sockaddr_un make_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path)
    throw ControlSocketError("control socket: path \"" + path + "\" is longer than " +
                             std::to_string(sizeof address.sun_path - 1) + " bytes");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// True when something accepts connections on `path` (another braid is running there).
bool socket_is_live(const sockaddr_un& address) {
  const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  const bool live =
      ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  ::close(probe);
  return live;
}

}  // namespace

void ControlSocket::check_available(const std::string& path) {
  const sockaddr_un address = make_address(path);
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;
  if (!S_ISSOCK(info.st_mode))
    throw ControlSocketError("control socket: " + path +
                             " exists and is not a socket; remove it or choose another path "
                             "(--control-socket, control.socket)");
  if (socket_is_live(address))
    throw ControlSocketError("control socket: " + path +
                             " is in use by a running braid; give this one another "
                             "--file-prefix or --control-socket");
}

ControlSocket::ControlSocket(std::string path, Handler handler)
    : path_(std::move(path)), handler_(std::move(handler)) {
  const sockaddr_un address = make_address(path_);
  check_available(path_);
  ::unlink(path_.c_str());  // stale, left by a braid that did not exit cleanly
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw ControlSocketError(system_error("control socket: socket()"));
  // The umask makes bind() create the file 0600 at once: no window where others could connect.
  const mode_t old_mask = ::umask(0177);
  const int bound = ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  ::umask(old_mask);
  if (bound != 0 || ::listen(listen_fd_, 32) != 0) {
    const std::string message = system_error("control socket: cannot listen on " + path_);
    ::close(listen_fd_);
    throw ControlSocketError(message);
  }
}

ControlSocket::~ControlSocket() {
  for (const auto& client : clients_)
    ::close(client->fd);
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    ::unlink(path_.c_str());
  }
}

void ControlSocket::add_poll_fds(std::vector<pollfd>& fds) const {
  fds.push_back({listen_fd_, POLLIN, 0});
  for (const auto& client : clients_) {
    // A client with kMaxPendingRequests waiting is not read from until they drain: the kernel's
    // socket buffer then pushes back on it.
    const short in = client->waiting.size() < kMaxPendingRequests ? POLLIN : 0;
    fds.push_back({client->fd, static_cast<short>(in | (client->out.empty() ? 0 : POLLOUT)), 0});
  }
}

std::uint64_t ControlSocket::next_deadline_ns() const {
  std::uint64_t next = UINT64_MAX;
  for (const auto& client : clients_) {
    if (idle(*client)) next = std::min(next, client->active_ns + kIdleTimeoutNs);
    if (!client->out.empty()) next = std::min(next, client->active_ns + kStalledTimeoutNs);
  }
  return next;
}

ControlSocket::Client* ControlSocket::find(std::uint64_t id) {
  for (const auto& client : clients_) {
    if (client->id == id) return client.get();
  }
  return nullptr;
}

// The client idle, or not reading its replies, for longest goes: a connection that holds a
// place without asking anything, or without reading what it asked for, never keeps an operator
// out.
bool ControlSocket::make_room(std::uint64_t now_ns) {
  auto oldest = clients_.end();
  for (auto it = clients_.begin(); it != clients_.end(); ++it) {
    const bool evictable = idle(**it) || stalled(**it, now_ns, kStalledNs);
    if (evictable && (oldest == clients_.end() || (*it)->active_ns < (*oldest)->active_ns))
      oldest = it;
  }
  if (oldest == clients_.end()) return false;
  const std::string why = idle(**oldest) ? "idle" : "reading none of its replies";
  const std::string frame = encode_frame(encode_reply(
      {false, "closed: " + why + " for " +
                  std::to_string((now_ns - (*oldest)->active_ns) / 1'000'000'000) + " s while " +
                  std::to_string(kMaxClients) + " clients were connected and another one came\n"}));
  [[maybe_unused]] const ssize_t sent =
      ::send((*oldest)->fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::close((*oldest)->fd);
  clients_.erase(oldest);
  counters_.evicted_idle.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ControlSocket::accept_clients(std::uint64_t now_ns) {
  while (true) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: nobody else waiting
    ucred peer{};
    socklen_t length = sizeof peer;
    const bool known = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0;
    std::string refusal;
    if (!known || !control_peer_allowed(peer.uid, ::geteuid())) {
      refusal = "permission denied: the control socket serves only uid " +
                std::to_string(::geteuid()) + " and root" +
                (known ? " (you are uid " + std::to_string(peer.uid) + ")" : "");
    } else if (clients_.size() >= kMaxClients && !make_room(now_ns)) {
      refusal =
          "too many control connections (" + std::to_string(kMaxClients) + ", all busy); try again";
    }
    if (!refusal.empty()) {
      counters_.refused.fetch_add(1, std::memory_order_relaxed);
      const std::string frame = encode_frame(encode_reply({false, refusal + "\n"}));
      [[maybe_unused]] const ssize_t sent =
          ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(fd);
      continue;
    }
    auto client = std::make_unique<Client>();
    client->id = next_id_++;
    client->fd = fd;
    client->active_ns = now_ns;
    clients_.push_back(std::move(client));
    counters_.accepted.fetch_add(1, std::memory_order_relaxed);
  }
}

// Tells the client why (if it reads at all) and closes it once that is written.
void ControlSocket::refuse(Client& client, const std::string& why) {
  counters_.over_limit.fetch_add(1, std::memory_order_relaxed);
  client.waiting.clear();
  client.out += encode_frame(encode_reply({false, why + "\n"}));
  client.broken = true;
}

bool ControlSocket::read(Client& client, std::uint64_t now_ns) {
  char chunk[kReadChunk];
  // At most a few chunks per poll: one busy client cannot keep the others waiting.
  for (int chunks = 0; chunks < 16 && !client.closing && !client.broken &&
                       client.waiting.size() < kMaxPendingRequests;
       ++chunks) {
    const ssize_t got = ::recv(client.fd, chunk, sizeof chunk, 0);
    if (got > 0) {
      client.active_ns = now_ns;
      client.reader.append(chunk, static_cast<std::size_t>(got));
      while (std::optional<std::string> payload = client.reader.next()) {
        if (client.waiting.size() >= kMaxPendingRequests) {
          refuse(client, "more than " + std::to_string(kMaxPendingRequests) +
                             " requests pending: wait for the replies (braidctl sends one at a "
                             "time); disconnected");
          return true;
        }
        RequestDecode decoded = parse_request(*payload);
        if (decoded.ok()) {
          client.waiting.push_back(std::move(*decoded.request));
        } else {
          client.out += encode_frame(encode_reply({false, decoded.error + "\n"}));
        }
      }
      if (client.reader.oversized()) {
        refuse(client, "a request frame over " + std::to_string(kMaxRequestFrameBytes) +
                           " bytes (a command line is at most 4096); disconnected");
        return true;
      }
      continue;
    }
    if (got == 0) {
      client.closing = true;  // the peer is done sending; finish writing what it asked for
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return false;
    }
    break;
  }
  return true;
}

bool ControlSocket::write(Client& client, std::uint64_t now_ns) {
  while (!client.out.empty()) {
    const ssize_t sent =
        ::send(client.fd, client.out.data(), client.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return false;
    }
    client.active_ns = now_ns;
    client.out.erase(0, static_cast<std::size_t>(sent));
  }
  if (client.out.size() > kMaxUnreadReplyBytes) {
    // It does not read what it asks for: its replies would grow braid's memory without bound.
    counters_.over_limit.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (client.broken && client.out.empty()) return false;
  if (client.closing && idle(client)) return false;
  if ((idle(client) && now_ns >= client.active_ns + kIdleTimeoutNs) ||
      stalled(client, now_ns, kStalledTimeoutNs)) {
    counters_.timed_out.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

// One request per client in turn, to the client that waited longest first.
void ControlSocket::dispatch() {
  const std::size_t count = clients_.size();
  for (std::size_t k = 0; k < count; ++k) {
    Client& client = *clients_[(next_turn_ + k) % count];
    if (client.in_flight || client.waiting.empty() || client.broken) continue;
    Request request = std::move(client.waiting.front());
    client.waiting.pop_front();
    client.in_flight = true;
    counters_.requests.fetch_add(1, std::memory_order_relaxed);
    const std::uint64_t id = client.id;
    handler_(request, [this, id](Reply reply) {
      Client* answered = find(id);
      if (answered == nullptr) return;  // it left meanwhile
      answered->in_flight = false;
      answered->out += encode_frame(encode_reply(reply));
    });
  }
  if (count != 0) next_turn_ = (next_turn_ + 1) % count;
}

void ControlSocket::poll(std::uint64_t now_ns) {
  accept_clients(now_ns);
  for (const auto& client : clients_) {
    if (!read(*client, now_ns)) client->dead = true;
  }
  dispatch();
  std::erase_if(clients_, [&](const std::unique_ptr<Client>& client) {
    const bool keep = !client->dead && write(*client, now_ns);
    if (!keep) ::close(client->fd);
    return !keep;
  });
  counters_.clients.store(clients_.size(), std::memory_order_relaxed);
}

bool ControlSocket::replies_pending() const {
  return std::any_of(clients_.begin(), clients_.end(), [](const std::unique_ptr<Client>& client) {
    return client->in_flight || !client->out.empty();
  });
}

}  // namespace braid::control
