#include "config/lacp_loader.hpp"

namespace braid::config {
namespace {

// One of `choices` (as written in the file), or the default when absent.
std::string read_word(const YamlReader& in, const YAML::Node& node, const std::string& key,
                      const std::string& where, std::initializer_list<std::string> choices) {
  const std::string text = in.get_string(node, key, where, *choices.begin());
  std::string known;
  for (const std::string& choice : choices) {
    if (choice == text) return text;
    known += (known.empty() ? "" : " or ") + choice;
  }
  in.fail(node[key], where + "." + key, "expected " + known + ", got \"" + text + "\"");
}

void read_withdraw(const YamlReader& in, const YAML::Node& node, const std::string& where,
                   bond::WithdrawPolicy& withdraw) {
  in.expect_map(node, where, {"degraded", "cabling", "patience_ms"});
  const std::string degraded =
      read_word(in, node, "degraded", where, {"receive", "always", "never"});
  withdraw.degraded = degraded == "always"  ? bond::WithdrawPolicy::Degraded::kAlways
                      : degraded == "never" ? bond::WithdrawPolicy::Degraded::kNever
                                            : bond::WithdrawPolicy::Degraded::kReceive;
  withdraw.cabling = in.get_bool(node, "cabling", where, false);
  // At least one LACPDU round trip; at most what a planned stop may reasonably hold up.
  withdraw.patience_ns = in.get_uint(node, "patience_ms", where, 10, 10000, 1000) * 1'000'000;
}

}  // namespace

void read_lacp(const YamlReader& in, const YAML::Node& node, const std::string& where,
               LacpSettings& lacp) {
  in.expect_map(node, where,
                {"rate", "activity", "system_priority", "port_priority", "key", "aggregate_wait_ms",
                 "fallback", "withdraw"});
  lacp.fast = read_word(in, node, "rate", where, {"fast", "slow"}) == "fast";
  lacp.active = read_word(in, node, "activity", where, {"active", "passive"}) == "active";
  lacp.system_priority =
      static_cast<std::uint16_t>(in.get_uint(node, "system_priority", where, 0, 65535, 32768));
  lacp.port_priority =
      static_cast<std::uint16_t>(in.get_uint(node, "port_priority", where, 0, 65535, 255));
  if (const YAML::Node key = node["key"]; key.IsDefined() && key.Scalar() != "auto") {
    lacp.key = static_cast<std::uint16_t>(in.get_uint(node, "key", where, 1, 65535, 1));
  }
  lacp.aggregate_wait_ms =
      static_cast<std::uint32_t>(in.get_uint(node, "aggregate_wait_ms", where, 0, 60000, 2000));
  lacp.fallback = in.get_bool(node, "fallback", where, false);
  if (const YAML::Node withdraw = node["withdraw"]; withdraw.IsDefined())
    read_withdraw(in, withdraw, where + ".withdraw", lacp.withdraw);
}

}  // namespace braid::config
