#include "control/log_commands.hpp"

#include <fnmatch.h>
#include <rte_log.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "control/edit_distance.hpp"
#include "log/log_types.hpp"

namespace braid::control {
namespace {

// rte_log's levels, index = RTE_LOG_* value - 1.
constexpr std::array<const char*, 8> kLevelNames = {"emerg",   "alert",  "crit", "err",
                                                    "warning", "notice", "info", "debug"};

std::vector<std::string> level_names() {
  return {kLevelNames.begin(), kLevelNames.end()};
}

std::string dump_logs() {
  char* buffer = nullptr;
  std::size_t size = 0;
  FILE* stream = open_memstream(&buffer, &size);
  if (stream == nullptr) return "";
  rte_log_dump(stream);
  std::fclose(stream);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

}  // namespace

std::vector<LogTypeLevel> log_types() {
  // Lines look like "id 31: braid.engine, level is info".
  std::vector<LogTypeLevel> types;
  std::istringstream lines(dump_logs());
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t colon = line.find(": ");
    const std::size_t comma = line.find(", level is ");
    if (!line.starts_with("id ") || colon == std::string::npos || comma == std::string::npos)
      continue;
    types.push_back({line.substr(colon + 2, comma - colon - 2), line.substr(comma + 11)});
  }
  return types;
}

void register_log_commands(CommandRegistry& registry) {
  log::register_all();
  registry.define_param(
      "type", {.help = "an rte_log type (braid.engine, braid.bond, lib.eal, ...) or a glob "
                       "such as braid.*",
               .values = [] {
                 std::vector<std::string> names;
                 for (const LogTypeLevel& entry : log_types())
                   names.push_back(entry.type);
                 return names;
               }});
  registry.define_param("level", {.help = "emerg, alert, crit, err, warning, notice, info or "
                                          "debug",
                                  .values = level_names,
                                  .strict = true});

  registry.add("show log [all]", "log levels of braid's types (all: every rte_log type)",
               [](const Args& args, Output& out) {
                 const bool all = args.used("all");
                 out.value("global", kLevelNames[rte_log_get_global_level() - 1]);
                 Table& table = out.table("types", {"type", "level"});
                 for (const LogTypeLevel& entry : log_types()) {
                   if (all || entry.type.starts_with("braid")) table.row({entry.type, entry.level});
                 }
               });
  registry.add(
      "set log <type> <level>", "set the level of a log type (or glob) at run time",
      [](const Args& args, Output& out) {
        const std::string type = args.get("type");
        const std::string level_name = args.get("level");
        std::uint32_t level = 0;
        for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
          if (level_name == kLevelNames[i]) level = static_cast<std::uint32_t>(i + 1);
        }
        std::size_t matched = 0;
        std::vector<std::string> names;
        for (const LogTypeLevel& entry : log_types()) {
          names.push_back(entry.type);
          matched += fnmatch(type.c_str(), entry.type.c_str(), 0) == 0;
        }
        if (matched == 0) {
          const std::string_view guess = closest(type, names);
          out.error("no log type matches \"" + type + "\"" +
                    (guess.empty() ? "" : " (did you mean \"" + std::string(guess) + "\"?)") +
                    "; \"show log all\" lists them");
          return;
        }
        // A glob also applies to types registered later (a module that starts late).
        if (rte_log_set_level_pattern(type.c_str(), level) != 0) {
          out.error("rte_log refused \"" + type + "\"");
          return;
        }
        out.value("type", type);
        out.value("level", level_name);
        out.value("types_changed", std::uint64_t{matched});
      });
}

}  // namespace braid::control
