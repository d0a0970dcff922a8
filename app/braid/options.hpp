#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace braid::app {

struct Options {
  std::string config_path;  // empty: the built-in demo
  bool check_only = false;
  bool portable = false;                           // --check: problems with this host are warnings
  bool memory = false;                             // --check: also the memory plan per socket
  std::string sysfs = "/sys";                      // --memory: where devices' NUMA nodes are read
  std::optional<std::uint32_t> duration_s;         // stop by itself after this long
  std::optional<std::uint32_t> stats_interval_ms;  // overrides the config
  bool interactive = false;                        // -i: the console on stdin
  std::optional<std::string> control_socket;       // overrides control.socket
  std::vector<std::string> eal_args;               // everything after "--"
};

// Parses argv; prints --help / --version or a usage error and exits for those.
Options parse_options(int argc, char** argv);

}  // namespace braid::app
