// Reads a bond's `classes:` section (doc/config.md, doc/classes.md).
#pragma once

#include <string>
#include <vector>

#include "classify/class_spec.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

// `members`: the bond's member ports, which list[].members may name.
classify::ClassifierSpec read_classes(const YamlReader& in, const YAML::Node& node,
                                      const std::string& where,
                                      const std::vector<std::string>& members);

}  // namespace braid::config
