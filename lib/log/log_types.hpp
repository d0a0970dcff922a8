// braid's rte_log types, one per module, so levels can be set per module from the EAL command
// line (`-- --log-level=braid.bond:debug`, or `braid:debug` for all of them: EAL matches the
// type as a regular expression) and from the console (`set log braid.bond debug`).
//
//   BRAID_LOG_TO(kBond, WARNING, "member %s: link down\n", name);
#pragma once

#include <rte_log.h>

#include <array>
#include <string_view>

namespace braid::log {

enum class Module { kEngine, kBond, kLacp, kSched, kControl, kCount };

inline constexpr std::array<std::string_view, static_cast<std::size_t>(Module::kCount)>
    kModuleTypeNames = {"braid.engine", "braid.bond", "braid.lacp", "braid.sched", "braid.control"};

// The rte_log type of a module, registered on first use (level INFO unless EAL's --log-level
// said otherwise). Call after rte_eal_init so the command-line levels apply.
int type(Module module);
// Registers every module's type (so `show log` lists them before a module first logs).
void register_all();

}  // namespace braid::log

#define BRAID_LOG_TO(module, level, ...) \
  rte_log(RTE_LOG_##level, ::braid::log::type(::braid::log::Module::module), "braid: " __VA_ARGS__)
