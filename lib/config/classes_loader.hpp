// Reads a bond's `classes:` section (doc/config.md, doc/classes.md).
#pragma once

#include <string>

#include "classify/class_spec.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

classify::ClassifierSpec read_classes(const YamlReader& in, const YAML::Node& node,
                                      const std::string& where);

}  // namespace braid::config
