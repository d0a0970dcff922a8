#include "control/control_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "control/peer_policy.hpp"

namespace braid::control {
namespace {

constexpr std::size_t kMaxClients = 16;
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

ControlSocket::ControlSocket(std::string path, Handler handler)
    : path_(std::move(path)), handler_(std::move(handler)) {
  const sockaddr_un address = make_address(path_);
  struct stat info {};
  if (::lstat(path_.c_str(), &info) == 0) {
    if (!S_ISSOCK(info.st_mode))
      throw ControlSocketError("control socket: " + path_ +
                               " exists and is not a socket; remove it or choose another path");
    if (socket_is_live(address))
      throw ControlSocketError("control socket: " + path_ +
                               " is in use by a running braid; give this one another "
                               "--file-prefix or --control-socket");
    ::unlink(path_.c_str());  // stale, left by a braid that did not exit cleanly
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw ControlSocketError(system_error("control socket: socket()"));
  // The umask makes bind() create the file 0600 at once: no window where others could connect.
  const mode_t old_mask = ::umask(0177);
  const int bound = ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  ::umask(old_mask);
  if (bound != 0 || ::listen(listen_fd_, 8) != 0) {
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
    fds.push_back(
        {client->fd, static_cast<short>(POLLIN | (client->pending.empty() ? 0 : POLLOUT)), 0});
  }
}

void ControlSocket::accept_clients() {
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
    } else if (clients_.size() >= kMaxClients) {
      refusal = "too many control connections (" + std::to_string(kMaxClients) + ")";
    }
    if (!refusal.empty()) {
      ++refused_;
      const std::string frame = encode_frame(encode_reply({false, refusal + "\n"}));
      [[maybe_unused]] const ssize_t sent = ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT);
      ::close(fd);
      continue;
    }
    auto client = std::make_unique<Client>();
    client->fd = fd;
    clients_.push_back(std::move(client));
  }
}

bool ControlSocket::serve(Client& client) {
  char chunk[kReadChunk];
  while (!client.closing) {
    const ssize_t got = ::recv(client.fd, chunk, sizeof chunk, 0);
    if (got > 0) {
      client.reader.append(chunk, static_cast<std::size_t>(got));
      continue;
    }
    if (got == 0) {
      client.closing = true;  // the peer is done sending; finish writing what it asked for
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return false;
    }
    break;
  }
  while (std::optional<std::string> payload = client.reader.next()) {
    const std::optional<Request> request = decode_request(*payload);
    const Reply reply = request
                            ? handler_(*request)
                            : Reply{false, "bad request: expected \"text|json|complete <line>\"\n"};
    client.pending += encode_frame(encode_reply(reply));
  }
  if (client.reader.oversized()) return false;
  while (!client.pending.empty()) {
    const ssize_t sent = ::send(client.fd, client.pending.data(), client.pending.size(),
                                MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return false;
    }
    client.pending.erase(0, static_cast<std::size_t>(sent));
  }
  return !(client.closing && client.pending.empty());
}

void ControlSocket::poll() {
  accept_clients();
  for (std::size_t i = 0; i < clients_.size();) {
    if (serve(*clients_[i])) {
      ++i;
    } else {
      ::close(clients_[i]->fd);
      clients_.erase(clients_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

}  // namespace braid::control
