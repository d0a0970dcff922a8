// `bonds[].lacp` in the config file (mode lacp): rate, activity, priorities, key, aggregate wait,
// fallback, and `withdraw`: which member verdicts braid tells the partner about
// (lib/bond/member_service.hpp, doc/config.md).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/config.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

void read_lacp(const YamlReader& in, const YAML::Node& node, const std::string& where,
               LacpSettings& lacp);

}  // namespace braid::config
