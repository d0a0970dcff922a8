#include "control/control_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace braid::control {

ControlClient::ControlClient(const std::string& path) : path_(path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path)
    throw ControlClientError("control socket path too long: " + path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw ControlClientError(std::string("socket(): ") + std::strerror(errno));
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    std::string hint = error == ENOENT || error == ECONNREFUSED
                           ? " (is braid running? pass --socket PATH or --file-prefix P)"
                       : error == EACCES ? " (the socket belongs to another user; run as that user)"
                                         : "";
    throw ControlClientError("cannot connect to " + path + ": " + std::strerror(error) + hint);
  }
}

ControlClient::~ControlClient() {
  if (fd_ >= 0) ::close(fd_);
}

Reply ControlClient::call(const Request& request, std::chrono::milliseconds timeout) {
  const std::string frame = encode_frame(encode_request(request));
  std::size_t written = 0;
  while (written < frame.size()) {
    const ssize_t sent = ::send(fd_, frame.data() + written, frame.size() - written, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      // A refusing server answers and closes at once: its reply may still be waiting.
      if (errno == EPIPE || errno == ECONNRESET) break;
      throw ControlClientError("lost the connection to " + path_ + ": " + std::strerror(errno));
    }
    written += static_cast<std::size_t>(sent);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (std::optional<std::string> payload = reader_.next()) {
      if (std::optional<Reply> reply = decode_reply(*payload)) return *reply;
      throw ControlClientError("malformed reply from " + path_);
    }
    if (reader_.oversized()) throw ControlClientError("oversized reply from " + path_);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw ControlClientError("no reply from " + path_ + " in time");
    pollfd waiting{fd_, POLLIN, 0};
    if (::poll(&waiting, 1, static_cast<int>(left.count())) < 0 && errno != EINTR)
      throw ControlClientError(std::string("poll(): ") + std::strerror(errno));
    char chunk[4096];
    const ssize_t got = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (got == 0) throw ControlClientError("braid closed the connection (" + path_ + ")");
    if (got > 0) reader_.append(chunk, static_cast<std::size_t>(got));
  }
}

}  // namespace braid::control
