#pragma once

#include <string_view>

namespace braid::config {

// The text of config/demo.yaml, compiled in: braid runs it when started without --config.
std::string_view demo_config_text();

}  // namespace braid::config
