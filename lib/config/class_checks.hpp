// A bond's traffic classes held against its scheduler, once both are read: what the loader
// refuses (a reserved share without a congestion source, spray on traffic RoCEv2 can reach) and
// what it warns of (drops by design on the bond's PFC priority, shares that starve the rest).
#pragma once

#include <string>

#include "config/config.hpp"
#include "config/yaml_reader.hpp"

namespace braid::config {

// `node`: the bond's map, `where`: its path ("bonds[0] \"uplink\"").
void check_classes_with_scheduler(const YamlReader& in, const YAML::Node& node,
                                  const std::string& where, const BondConfig& bond);

}  // namespace braid::config
