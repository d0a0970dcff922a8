// The control socket server: a UNIX stream socket, mode 0600, that only the user running braid
// may use (file permissions, and SO_PEERCRED on every connection for the case where someone
// loosens them). Non-blocking: poll() accepts, reads whole frames, answers them through the
// handler and writes replies, all on the calling (control) thread, so handlers may touch
// control-plane state without locks.
#pragma once

#include <poll.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/frame.hpp"

namespace braid::control {

class ControlSocketError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ControlSocket {
 public:
  using Handler = std::function<Reply(const Request&)>;

  // Throws ControlSocketError when the path is in use by a live braid or cannot be bound. A
  // stale socket file (nobody accepting) is replaced.
  ControlSocket(std::string path, Handler handler);
  ~ControlSocket();
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;

  void poll();
  // The descriptors worth waiting on (listener, clients; POLLOUT when a reply is pending).
  void add_poll_fds(std::vector<pollfd>& fds) const;

  const std::string& path() const { return path_; }
  std::size_t client_count() const { return clients_.size(); }
  std::uint64_t refused_count() const { return refused_; }

 private:
  struct Client {
    int fd = -1;
    FrameReader reader;
    std::string pending;  // reply bytes not yet written
    bool closing = false;
  };
  void accept_clients();
  bool serve(Client& client);  // false: close it

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Client>> clients_;
  std::uint64_t refused_ = 0;
};

}  // namespace braid::control
