// libFuzzer target: the config loader on arbitrary text. A ConfigError is the loader doing its
// job; any other exception, a crash, a hang or a huge allocation is a bug. What it accepts must
// hold what the engine relies on without checking again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "config/config_loader.hpp"
#include "config/file_prefix.hpp"

namespace {

using namespace braid::config;

void check(bool condition) {
  if (!condition) std::abort();
}

void check_accepted(const Config& config) {
  check(!config.ports.empty());
  check(!config.cross_connects.empty());
  check(!config.workers.lcores.empty());
  check(file_prefix_problem(config.eal.file_prefix).empty());
  std::set<std::string_view> ports;
  for (const PortConfig& port : config.ports)
    check(ports.insert(port.name).second);
  std::set<std::string_view> endpoints = ports;
  std::set<std::string_view> members;
  for (const BondConfig& bond : config.bonds) {
    check(!bond.members.empty());
    check((bond.buckets & (bond.buckets - 1)) == 0);
    check(endpoints.insert(bond.name).second);
    for (const std::string& member : bond.members) {
      check(ports.contains(member));
      check(members.insert(member).second);
    }
  }
  for (const CrossConnect& pair : config.cross_connects) {
    check(endpoints.contains(pair.a) && !members.contains(pair.a));
    check(endpoints.contains(pair.b) && !members.contains(pair.b));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_accepted(parse_config(text, "fuzz.yaml"));
  } catch (const ConfigError& error) {
    check(std::string_view(error.what()).starts_with("config: fuzz.yaml"));
  }
  return 0;
}
