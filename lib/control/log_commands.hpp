// `show log [all]` and `set log <type> <level>`: rte_log levels from the console, for braid's
// own types (braid.engine, braid.bond, ...) and DPDK's (lib.eal, pmd.net.mlx5, ...).
#pragma once

#include <string>
#include <vector>

#include "control/command_registry.hpp"

namespace braid::control {

struct LogTypeLevel {
  std::string type;
  std::string level;
};

// Every registered rte_log type and its level (rte_log_dump has the only list in 22.11).
std::vector<LogTypeLevel> log_types();

void register_log_commands(CommandRegistry& registry);

}  // namespace braid::control
