#include "config/config_validate.hpp"

#include <algorithm>
#include <array>
#include <set>

namespace braid::config {
namespace {

constexpr std::array<std::string_view, 7> kRssFields = {"ipv4", "ipv6", "tcp",    "udp",
                                                        "sctp", "l2",   "ipv6-ex"};

[[noreturn]] void fail(const Config& config, std::string_view where, std::string_view what) {
  throw ConfigError("config: " + config.origin + ": " + std::string(where) + ": " +
                    std::string(what));
}

std::string known_ports(const Config& config) {
  std::string names;
  for (const PortConfig& port : config.ports) {
    if (!names.empty()) names += ", ";
    names += port.name;
  }
  return names;
}

void validate_ports(const Config& config) {
  if (config.ports.empty()) fail(config, "ports", "at least one port is required");
  std::set<std::string_view> names;
  std::set<std::string_view> devices;
  const std::size_t workers = config.workers.lcores.size();
  for (std::size_t i = 0; i < config.ports.size(); ++i) {
    const PortConfig& port = config.ports[i];
    const std::string where = "ports[" + std::to_string(i) + "] \"" + port.name + "\"";
    if (!names.insert(port.name).second) fail(config, where, "duplicate port name");
    if (!devices.insert(port.device).second) {
      fail(config, where, "device \"" + port.device + "\" is already used by another port");
    }
    if (port.tx_queues != 0 && port.tx_queues < workers) {
      fail(config, where,
           "tx_queues must be at least the number of workers (" + std::to_string(workers) +
               ") because TX queues are never shared between threads; got " +
               std::to_string(port.tx_queues) + " (0 picks it for you)");
    }
  }
}

void validate_workers(const Config& config) {
  const WorkerConfig& workers = config.workers;
  if (workers.lcores.empty())
    fail(config, "workers.lcores", "at least one worker lcore is required");
  std::set<unsigned> seen;
  for (unsigned lcore : workers.lcores) {
    if (!seen.insert(lcore).second) {
      fail(config, "workers.lcores", "lcore " + std::to_string(lcore) + " is listed twice");
    }
    if (lcore == config.eal.main_lcore) {
      fail(config, "workers.lcores",
           "lcore " + std::to_string(lcore) +
               " is the main lcore (eal.main_lcore), which runs the control thread");
    }
  }
}

void validate_cross_connects(const Config& config) {
  if (config.cross_connects.empty()) {
    fail(config, "cross_connect", "at least one pair of ports to forward between is required");
  }
  std::set<std::string_view> used;
  for (std::size_t i = 0; i < config.cross_connects.size(); ++i) {
    const CrossConnect& pair = config.cross_connects[i];
    const std::string where = "cross_connect[" + std::to_string(i) + "]";
    for (const std::string* name_ptr : {&pair.a, &pair.b}) {
      const std::string& name = *name_ptr;
      if (config.find_port(name) == nullptr) {
        fail(config, where,
             "port \"" + name + "\" is not a configured port (known: " + known_ports(config) + ")");
      }
      if (!used.insert(name).second) {
        fail(config, where, "port \"" + name + "\" is already in another pair");
      }
    }
    if (pair.a == pair.b) fail(config, where, "a port cannot be cross-connected to itself");
  }
  for (const PortConfig& port : config.ports) {
    if (!used.contains(port.name)) {
      fail(config, "ports \"" + port.name + "\"",
           "port is not used by anything: add it to cross_connect or remove it");
    }
  }
}

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

bool is_rss_field(std::string_view field) {
  return std::find(kRssFields.begin(), kRssFields.end(), field) != kRssFields.end();
}

std::string rss_field_names() {
  std::string names;
  for (std::string_view field : kRssFields) {
    if (!names.empty()) names += ", ";
    names += field;
  }
  return names;
}

void validate(const Config& config) {
  validate_workers(config);
  validate_ports(config);
  validate_cross_connects(config);
}

}  // namespace braid::config
