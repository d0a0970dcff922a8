// `braid -i`: the interactive console on stdin/stdout, built on DPDK's cmdline library like
// testpmd's, so it has rdline's line editing, history and tab completion. cmdline sees one
// instruction made of dynamic "word" tokens (cmdline_parse.c's get_token() asks the
// instruction for its i-th token); every word is accepted and the line goes to the
// CommandRegistry, which also answers completion. Input is read non-blocking from the control
// loop (poll()), so the console never stalls LACP ticks or snapshots.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "control/command_registry.hpp"

struct cmdline;

namespace braid::control {

class Console {
 public:
  using Runner = std::function<std::string(std::string_view line)>;  // returns text to print

  // One console per process (stdin is one); throws std::logic_error for a second.
  Console(const CommandRegistry& registry, Runner runner, std::string prompt = "braid> ");
  ~Console();  // restores the terminal
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  // Reads what stdin has (never blocks) and runs completed lines. Returns false once the
  // console has ended (Ctrl-D on an empty line, end of input, or close()).
  bool poll();
  void close();
  int fd() const { return 0; }
  bool open() const { return cl_ != nullptr; }

  // Called by the cmdline callbacks (C linkage trampolines); not for other users.
  struct Hooks;

 private:
  const CommandRegistry& registry_;
  Runner runner_;
  std::string prompt_;
  cmdline* cl_ = nullptr;
};

}  // namespace braid::control
