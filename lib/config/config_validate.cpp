#include "config/config_validate.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "common/plural.hpp"

namespace braid::config {
namespace {

constexpr std::array<std::string_view, 7> kRssFields = {"ipv4", "ipv6", "tcp",    "udp",
                                                        "sctp", "l2",   "ipv6-ex"};

[[noreturn]] void fail(const Config& config, std::string_view where, std::string_view what) {
  throw ConfigError("config: " + config.origin + ": " + std::string(where) + ": " +
                    std::string(what));
}

// Name lookups for the cross-key checks. A config may list thousands of ports and members (a
// file is at most kMaxConfigBytes), and Config's linear find_port/bond_of_port per reference
// made validating such a file quadratic: seconds for a 0.5 MiB file.
struct Names {
  std::map<std::string_view, const PortConfig*> ports;
  std::map<std::string_view, const BondConfig*> bonds;
  std::map<std::string_view, const BondConfig*> bond_of_member;

  template <typename Map>
  static auto find(const Map& map, std::string_view name) -> typename Map::mapped_type {
    const auto it = map.find(name);
    return it == map.end() ? nullptr : it->second;
  }
  const PortConfig* port(std::string_view name) const { return find(ports, name); }
  const BondConfig* bond(std::string_view name) const { return find(bonds, name); }
  const BondConfig* bond_of_port(std::string_view name) const { return find(bond_of_member, name); }
};

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

std::string known_endpoints(const Config& config, const Names& index) {
  std::string names;
  for (const PortConfig& port : config.ports) {
    if (index.bond_of_port(port.name) != nullptr) continue;
    if (!names.empty()) names += ", ";
    names += port.name;
  }
  for (const BondConfig& bond : config.bonds) {
    if (!names.empty()) names += ", ";
    names += bond.name + " (bond)";
  }
  return names;
}

void validate_bonds(const Config& config, Names& index) {
  for (std::size_t i = 0; i < config.bonds.size(); ++i) {
    const BondConfig& bond = config.bonds[i];
    const std::string where = "bonds[" + std::to_string(i) + "] \"" + bond.name + "\"";
    if (!index.bonds.emplace(bond.name, &bond).second) fail(config, where, "duplicate bond name");
    if (index.port(bond.name) != nullptr) {
      fail(config, where, "a bond cannot have the name of a port");
    }
    if (bond.members.empty()) fail(config, where, "a bond needs at least one member");
    if (bond.members.size() > kMaxBondMembers) {
      fail(config, where,
           "a bond has at most " + std::to_string(kMaxBondMembers) + " members, this one " +
               std::to_string(bond.members.size()) + " (make two bonds)");
    }
    for (const std::string& member : bond.members) {
      if (index.port(member) == nullptr) {
        fail(config, where,
             "member \"" + member + "\" is not a configured port (known: " + known_ports(config) +
                 ")");
      }
      if (!index.bond_of_member.emplace(member, &bond).second) {
        fail(config, where, "port \"" + member + "\" is a member of more than one bond (or twice)");
      }
    }
    if (bond.min_links > bond.members.size()) {
      fail(config, where,
           "min_links " + std::to_string(bond.min_links) + " is more than its " +
               counted(bond.members.size(), "member"));
    }
  }
}

void validate_cross_connects(const Config& config, const Names& index) {
  if (config.cross_connects.empty()) {
    fail(config, "cross_connect", "at least one pair of ports to forward between is required");
  }
  std::set<std::string_view> used;
  for (std::size_t i = 0; i < config.cross_connects.size(); ++i) {
    const CrossConnect& pair = config.cross_connects[i];
    const std::string where = "cross_connect[" + std::to_string(i) + "]";
    for (const std::string* name_ptr : {&pair.a, &pair.b}) {
      const std::string& name = *name_ptr;
      if (const BondConfig* bond = index.bond_of_port(name)) {
        fail(config, where,
             "port \"" + name + "\" is a member of bond \"" + bond->name +
                 "\": cross-connect the bond instead");
      }
      if (index.port(name) == nullptr && index.bond(name) == nullptr) {
        fail(config, where,
             "\"" + name + "\" is not a configured port or bond (known: " +
                 known_endpoints(config, index) + ")");
      }
      if (!used.insert(name).second) {
        fail(config, where, "\"" + name + "\" is already in another pair");
      }
    }
    if (pair.a == pair.b) fail(config, where, "a port cannot be cross-connected to itself");
    if (index.bond(pair.a) != nullptr && index.bond(pair.b) != nullptr) {
      fail(config, where, "two bonds cannot be cross-connected (one side must be a port)");
    }
  }
  for (const PortConfig& port : config.ports) {
    if (!used.contains(port.name) && index.bond_of_port(port.name) == nullptr) {
      fail(config, "ports \"" + port.name + "\"",
           "port is not used by anything: add it to cross_connect or a bond, or remove it");
    }
  }
  for (const BondConfig& bond : config.bonds) {
    if (!used.contains(bond.name)) {
      fail(config, "bonds \"" + bond.name + "\"",
           "bond is not used by anything: cross-connect it with a port");
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

bool is_unicast_mac(std::string_view text) {
  std::array<std::uint8_t, 6> mac{};
  if (!parse_mac(text, mac)) return false;
  const bool zero = std::all_of(mac.begin(), mac.end(), [](std::uint8_t b) { return b == 0; });
  return !zero && (mac[0] & 0x01) == 0;  // the I/G bit: 1 is a group address
}

bool is_policy_name(std::string_view name) {
  return name == "hash" || name == "wrr" || name == "lqf" || name == "adaptive" ||
         name == "latency" || name == "spray";
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
  Names index;
  for (const PortConfig& port : config.ports)
    index.ports.emplace(port.name, &port);
  validate_bonds(config, index);
  validate_cross_connects(config, index);
}

}  // namespace braid::config
