// The control socket server: a UNIX stream socket, mode 0600, that only the user running braid
// may use (file permissions, and SO_PEERCRED on every connection for the case where someone
// loosens them). It runs on the management thread, non-blocking: poll() accepts, reads whole
// frames and hands each request to the handler, which answers later (the protocol loop runs the
// command, lib/common/job_queue.hpp). Fair and bounded:
//   - each client has at most one request with the handler at a time, taken round robin, so a
//     client that pipelines thousands of requests delays nobody else;
//   - at most kMaxPendingRequests may wait per client, and at most kMaxUnreadReplyBytes of
//     replies it does not read: beyond either the client is told why (when it can still read)
//     and disconnected;
//   - a client idle for kIdleTimeoutNs, or that reads nothing of its replies for
//     kStalledTimeoutNs, is closed; when kMaxClients are connected the one idle or not reading
//     for longest (at least kStalledNs for a non-reader) makes room for a newcomer, so neither
//     idle connections nor clients that stopped reading can lock braidctl out;
//   - a request frame is at most kMaxRequestFrameBytes (a command line is at most 4 KiB).
#pragma once

#include <poll.h>

#include <atomic>
#include <cstdint>
#include <deque>
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

struct ControlSocketCounters {
  std::atomic<std::uint64_t> clients{0};  // connected now
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> refused{0};  // not allowed, or no room
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> evicted_idle{0};  // closed to make room (idle, or not reading)
  std::atomic<std::uint64_t> timed_out{0};     // closed: idle, or not reading, too long
  std::atomic<std::uint64_t> over_limit{0};    // closed: too many pending requests or unread bytes
};

class ControlSocket {
 public:
  using Respond = std::function<void(Reply)>;
  // Answers `request` now or later, by calling `respond` once on the management thread.
  using Handler = std::function<void(const Request&, Respond respond)>;

  static constexpr std::size_t kMaxClients = 16;
  static constexpr std::size_t kMaxPendingRequests = 256;
  static constexpr std::size_t kMaxUnreadReplyBytes = 4u << 20;
  static constexpr std::uint64_t kIdleTimeoutNs = 300'000'000'000;  // 5 min
  static constexpr std::uint64_t kStalledNs = 1'000'000'000;
  static constexpr std::uint64_t kStalledTimeoutNs = 30'000'000'000;

  // Throws ControlSocketError when the path is in use by a live braid or cannot be bound. A
  // stale socket file (nobody accepting) is replaced.
  ControlSocket(std::string path, Handler handler);
  // The same checks without binding: throws ControlSocketError when `path` is taken (a live
  // braid, or a file that is not a socket). braid calls it before it starts anything.
  static void check_available(const std::string& path);
  ~ControlSocket();
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;

  void poll(std::uint64_t now_ns);
  // The descriptors worth waiting on (listener, clients; POLLOUT when a reply is pending).
  void add_poll_fds(std::vector<pollfd>& fds) const;
  // When an idle client times out (UINT64_MAX: none).
  std::uint64_t next_deadline_ns() const;

  const std::string& path() const { return path_; }
  // Some client waits for a reply, or has reply bytes not yet written.
  bool replies_pending() const;
  // Readable from any thread.
  const ControlSocketCounters& counters() const { return counters_; }

 private:
  struct Client {
    std::uint64_t id = 0;
    int fd = -1;
    FrameReader reader{kMaxRequestFrameBytes};
    std::deque<Request> waiting;  // decoded, not yet handed to the handler
    bool in_flight = false;
    std::string out;              // reply bytes not yet written
    std::uint64_t active_ns = 0;  // bytes last read from it or written to it
    bool closing = false;         // the peer is done sending
    bool broken = false;          // close as soon as what it may read is written
    bool dead = false;            // the connection failed: close now
  };
  void accept_clients(std::uint64_t now_ns);
  bool make_room(std::uint64_t now_ns);
  bool read(Client& client, std::uint64_t now_ns);   // false: close it
  bool write(Client& client, std::uint64_t now_ns);  // false: close it
  void dispatch();
  void refuse(Client& client, const std::string& why);
  Client* find(std::uint64_t id);
  static bool idle(const Client& client) {
    return !client.in_flight && client.waiting.empty() && client.out.empty();
  }
  // Replies wait for it and it has read none of them for `for_ns`.
  static bool stalled(const Client& client, std::uint64_t now_ns, std::uint64_t for_ns) {
    return !client.out.empty() && now_ns >= client.active_ns + for_ns;
  }

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Client>> clients_;
  std::uint64_t next_id_ = 1;
  std::size_t next_turn_ = 0;  // round robin over clients
  ControlSocketCounters counters_;
};

}  // namespace braid::control
