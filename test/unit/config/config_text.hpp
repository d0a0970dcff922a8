// Config texts and error capture shared by the config tests.
#pragma once

#include <string>

#include "config/config_loader.hpp"

namespace braid::config {

// Returns the ConfigError message, or "" when the text is valid.
inline std::string error_of(const std::string& text) {
  try {
    parse_config(text, "test.yaml");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

// A bond of two members, its last line `    <key>: ` waiting for the value under test.
inline std::string two_member_bond(const std::string& key) {
  return R"(
ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: net_ring1}
  - {name: m1, device: net_ring2}
cross_connect: [[host, uplink]]
bonds:
  - name: uplink
    members: [m0, m1]
    )" + key +
         ": ";
}

}  // namespace braid::config
