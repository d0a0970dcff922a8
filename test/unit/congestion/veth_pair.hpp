// A veth pair made for a test (and the shell helper that makes it): the ethtool readers are
// tested against the kernel's own statistics. Skips (create() says why) without root or `ip`.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace braid::test {

struct Command {
  int status = -1;  // the shell's exit status; 127: command not found
  std::string output;
};

// Runs `command` through the shell with stderr folded into the output.
inline Command run(const std::string& command) {
  Command result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr)
    result.output += buffer;
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// A veth pair that exists for the guard's lifetime; deleting one end deletes both.
class VethPair {
 public:
  VethPair(std::string name, std::string peer) : name_(std::move(name)), peer_(std::move(peer)) {}
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;
  ~VethPair() {
    if (created_) run("ip link del " + name_);
  }

  // nullopt when created; else why not.
  std::optional<std::string> create() {
    const Command add = run("ip link add " + name_ + " type veth peer name " + peer_);
    if (add.status == 127) return "`ip` (iproute2) is not installed";
    if (add.status != 0) {
      return "cannot create a veth pair (needs root or CAP_NET_ADMIN): " + add.output;
    }
    created_ = true;
    return std::nullopt;
  }
  const std::string& name() const { return name_; }
  const std::string& peer() const { return peer_; }

 private:
  std::string name_;
  std::string peer_;
  bool created_ = false;
};

}  // namespace braid::test
