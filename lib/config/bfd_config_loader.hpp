// Reads bonds[].bfd (bfd_config.hpp) for config_loader.cpp.
#pragma once

#include <string>
#include <vector>

#include "config/bfd_config.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

// `members`: the bond's member port names, in order.
BfdConfig read_bfd(const YamlReader& in, const YAML::Node& node, const std::string& where,
                   const std::vector<std::string>& members);

}  // namespace braid::config
