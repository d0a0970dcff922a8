// Wakes the protocol loop from another thread: an eventfd the loop waits on with its other input
// descriptors. notify() is a single write(2), so it may be called from any thread, including
// EAL's interrupt thread (link-status callbacks) and signal handlers.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace braid {

class Waker {
 public:
  Waker() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  }
  ~Waker() { ::close(fd_); }
  Waker(const Waker&) = delete;
  Waker& operator=(const Waker&) = delete;

  void notify() const {
    const std::uint64_t one = 1;
    // A full counter (2^64 - 2 pending wake-ups) still wakes the reader: ignore EAGAIN.
    [[maybe_unused]] const ssize_t written = ::write(fd_, &one, sizeof one);
  }
  // Clears pending wake-ups (the reader, once awake).
  void drain() const {
    std::uint64_t count = 0;
    [[maybe_unused]] const ssize_t got = ::read(fd_, &count, sizeof count);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace braid
