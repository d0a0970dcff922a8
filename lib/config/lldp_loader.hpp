// `bonds[].lldp` in the config file: a map of LldpSettings, or `off` / `on` alone.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/lldp_settings.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

void read_lldp(const YamlReader& in, const YAML::Node& node, const std::string& where,
               LldpSettings& out);

}  // namespace braid::config
