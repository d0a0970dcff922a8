// The client side of the control socket, for braidctl and the tests: connect, send a request,
// wait for its reply (blocking, with a timeout).
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "control/frame.hpp"

namespace braid::control {

class ControlClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ControlClient {
 public:
  // Throws ControlClientError with what went wrong and what to check.
  explicit ControlClient(const std::string& path);
  ~ControlClient();
  ControlClient(const ControlClient&) = delete;
  ControlClient& operator=(const ControlClient&) = delete;

  Reply call(const Request& request, std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  int fd_ = -1;
  std::string path_;
  FrameReader reader_;
};

}  // namespace braid::control
