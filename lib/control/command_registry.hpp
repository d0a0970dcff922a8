// The console's command set. Features register their own commands here (a pattern, one help
// line, a handler); the console, the control socket and telemetry all run commands through
// execute(), which never throws and never crashes on any input: an unknown or malformed line
// becomes an error naming what is wrong, the closest command and the valid choices.
//
//   registry.define_param("port", {.help = "a port name", .values = port_names, .strict = true});
//   registry.add("show port [stats|xstats|info] [<port>]", "port counters, xstats or info",
//                [&](const Args& args, Output& out) { ... args.get("port") ... });
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "control/args.hpp"
#include "control/command_pattern.hpp"
#include "control/output.hpp"

namespace braid::control {

using Handler = std::function<void(const Args& args, Output& out)>;
// True for the arguments whose handler only reads the driver (and may block on the kernel
// doing so): the control plane runs it on its SlowReads helper, not on the protocol loop.
using ReadsDriver = std::function<bool(const Args& args)>;

class CommandRegistry {
 public:
  CommandRegistry();  // registers `help [<command>...]`

  // Throws std::invalid_argument for a malformed pattern or one registered twice.
  void add(std::string_view pattern, std::string help, Handler handler,
           ReadsDriver reads_driver = {});
  // A parameter type shared by every pattern that names <name>; a later definition replaces it.
  void define_param(std::string name, ParamType type);

  // Runs one line. Empty lines do nothing; errors go to out.error().
  void execute(std::string_view line, Output& out) const;
  // Whether `line` is a command whose ReadsDriver says so for its arguments.
  bool reads_driver(std::string_view line) const;
  // Candidates for the word being typed at the end of `line` (complete words before it),
  // sorted and unique. `hint` (optional) receives "<param>: help" when a free-form parameter
  // comes next.
  std::vector<std::string> complete(std::string_view line, std::string* hint = nullptr) const;
  // `help` (every command) or `help <words>` (the commands starting with those words, with the
  // help of their parameters).
  void help(const std::vector<std::string>& topic, Output& out) const;

  struct Command {
    std::string pattern;
    std::vector<PatternElement> elements;
    std::string help;
    Handler handler;
    ReadsDriver reads_driver;
  };
  const std::vector<Command>& commands() const { return commands_; }

 private:
  const ParamType* param(const std::string& name) const;
  void explain_failure(const std::vector<std::string>& words, Output& out) const;

  std::vector<Command> commands_;
  std::map<std::string, ParamType> params_;
};

}  // namespace braid::control
