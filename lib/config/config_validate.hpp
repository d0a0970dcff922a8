#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/mac_text.hpp"
#include "config/config.hpp"

namespace braid::config {

// Cross-key checks that a single key's range check cannot see (references between sections,
// uniqueness, resources shared by threads). Throws ConfigError naming the origin and the key.
void validate(const Config& config);

bool is_valid_name(std::string_view name);
using braid::parse_mac;  // common/mac_text.hpp
bool is_unicast_mac(std::string_view text);
bool is_rss_field(std::string_view field);
// The distribution policies scheduler.policy and classes.list[].policy may name.
bool is_policy_name(std::string_view name);
inline constexpr const char* kPolicyNames = "hash, wrr, lqf, adaptive, latency, spray";
std::string rss_field_names();

}  // namespace braid::config
