#include "config/lldp_loader.hpp"

namespace braid::config {
namespace {

// 802.1AB 8.5.6, 8.5.7: System Name and System Description carry 0-255 octets.
constexpr std::size_t kMaxLldpStringLen = 255;

std::string read_text(const YamlReader& in, const YAML::Node& node, const std::string& key,
                      const std::string& where) {
  std::string text = in.get_string(node, key, where, "");
  if (text.size() > kMaxLldpStringLen) {
    in.fail(node[key], where + "." + key,
            "at most " + std::to_string(kMaxLldpStringLen) + " octets (802.1AB 8.5.6), got " +
                std::to_string(text.size()));
  }
  return text;
}

}  // namespace

void read_lldp(const YamlReader& in, const YAML::Node& node, const std::string& where,
               LldpSettings& out) {
  if (node.IsScalar()) {
    // `lldp: off` (or on): the switch alone, every other key at its default.
    const std::string& text = node.Scalar();
    if (text == "true" || text == "yes" || text == "on") {
      out.enabled = true;
    } else if (text == "false" || text == "no" || text == "off") {
      out.enabled = false;
    } else {
      in.fail(node, where, "expected on, off or a map of settings, got \"" + text + "\"");
    }
    return;
  }
  in.expect_map(node, where,
                {"enabled", "tx_interval_s", "tx_hold", "system_name", "system_description",
                 "silent_grace_s"});
  out.enabled = in.get_bool(node, "enabled", where, out.enabled);
  out.tx_interval_s =
      static_cast<std::uint32_t>(in.get_uint(node, "tx_interval_s", where, 1, 3600, 30));
  out.tx_hold = static_cast<std::uint32_t>(in.get_uint(node, "tx_hold", where, 1, 100, 4));
  out.system_name = read_text(in, node, "system_name", where);
  out.system_description = read_text(in, node, "system_description", where);
  out.silent_grace_s =
      static_cast<std::uint32_t>(in.get_uint(node, "silent_grace_s", where, 1, 86400, 60));
}

}  // namespace braid::config
