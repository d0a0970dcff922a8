#pragma once

#include <string>
#include <string_view>

#include "config/config.hpp"

namespace braid::config {

// Parses and validates a config. `origin` names the source in error messages. Throws ConfigError.
Config parse_config(std::string_view yaml_text, std::string origin);
Config load_config_file(const std::string& path);

}  // namespace braid::config
