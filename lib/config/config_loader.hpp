#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

// Parses and validates a config. `origin` names the source in error messages. Throws ConfigError.
Config parse_config(std::string_view yaml_text, std::string origin);
Config load_config_file(const std::string& path);
// Every whole-number key the loader range-checks while it reads `yaml_text` (a config with every
// section: config/every-section.yaml), sorted by path. Throws ConfigError as parse_config does.
std::vector<UintLimit> config_limits(std::string_view yaml_text);

}  // namespace braid::config
