// bonds[].classes: traffic class names, rules and the default class (doc/classes.md). Field
// errors point at the value's line; what only the whole section can tell (a class no frame can
// reach, a rule that names nothing) comes from classify::spec_error.
#include "config/classes_loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "config/config_validate.hpp"
#include "ecn/ecn_profile.hpp"

namespace braid::config {
namespace {

using classify::ClassifierSpec;
using classify::HeaderLevel;
using classify::Rule;
using classify::ValueRange;
using classify::ValueSet;

bool parse_number(const std::string& text, std::uint32_t& value) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const unsigned long long parsed = std::strtoull(text.c_str(), nullptr, 10);
  if (parsed > UINT32_MAX) return false;
  value = static_cast<std::uint32_t>(parsed);
  return true;
}

// One item of a value set: `46`, `"4420-4421"` or, for protocol, a name (tcp, udp, ...).
ValueRange read_range(const YamlReader& in, const YAML::Node& node, const std::string& where,
                      std::uint32_t max, bool protocol) {
  const std::string text = in.scalar(node, where);
  ValueRange range;
  if (protocol && classify::protocol_number(text) >= 0) {
    range.first = range.last = static_cast<std::uint32_t>(classify::protocol_number(text));
    return range;
  }
  const std::size_t dash = text.find('-');
  const bool valid = dash == std::string::npos
                         ? parse_number(text, range.first)
                         : parse_number(text.substr(0, dash), range.first) &&
                               parse_number(text.substr(dash + 1), range.last);
  if (!valid) {
    in.fail(
        node, where,
        "expected a number or a range like 4420-4421" +
            std::string(protocol ? " or a protocol name (icmp, tcp, udp, gre, icmpv6, sctp)" : "") +
            ", got \"" + text + "\"");
  }
  if (dash == std::string::npos) range.last = range.first;
  if (range.first > range.last) {
    in.fail(node, where, "range " + text + " is reversed (write the lower bound first)");
  }
  if (range.last > max) {
    in.fail(node, where, text + " is out of range (0.." + std::to_string(max) + ")");
  }
  return range;
}

// A value, a range or a list of them; absent: the rule does not look at the field.
ValueSet read_values(const YamlReader& in, const YAML::Node& rule, const std::string& key,
                     const std::string& where, std::uint32_t max) {
  const YAML::Node node = rule[key];
  ValueSet values;
  if (!node.IsDefined()) return values;
  const std::string at = where + "." + key;
  const bool protocol = key == "protocol";
  if (!node.IsSequence()) {
    values.push_back(read_range(in, node, at, max, protocol));
    return values;
  }
  if (node.size() == 0) in.fail(node, at, "an empty list matches nothing: leave the key out");
  for (std::size_t i = 0; i < node.size(); ++i)
    values.push_back(read_range(in, node[i], at + "[" + std::to_string(i) + "]", max, protocol));
  return values;
}

// The index of class `name`, or a failure naming the classes there are.
classify::ClassId class_index(const YamlReader& in, const ClassifierSpec& spec,
                              const YAML::Node& node, const std::string& where,
                              const std::string& name) {
  std::string known;
  for (std::size_t i = 0; i < spec.classes.size(); ++i) {
    if (spec.classes[i].name == name) return static_cast<classify::ClassId>(i);
    known += (i == 0 ? "" : ", ") + spec.classes[i].name;
  }
  in.fail(node, where, "unknown class \"" + name + "\" (classes.list has: " + known + ")");
}

Rule read_rule(const YamlReader& in, const YAML::Node& node, const std::string& where,
               const ClassifierSpec& spec) {
  in.expect_map(node, where,
                {"class", "header", "dscp", "pcp", "protocol", "src_port", "dst_port", "roce",
                 "roce_opcode", "roce_dest_qp"});
  Rule rule;
  rule.class_id = class_index(in, spec, node["class"], where + ".class",
                              in.required_string(node, "class", where));
  const std::string header = in.get_string(node, "header", where, "outer");
  if (header != "outer" && header != "inner") {
    in.fail(node["header"], where + ".header",
            "expected outer or inner (the headers inside VXLAN or GRE), got \"" + header + "\"");
  }
  rule.header = header == "inner" ? HeaderLevel::inner : HeaderLevel::outer;
  rule.dscp = read_values(in, node, "dscp", where, classify::kMaxDscp);
  rule.pcp = read_values(in, node, "pcp", where, classify::kMaxPcp);
  rule.protocol = read_values(in, node, "protocol", where, classify::kMaxProtocol);
  rule.src_port = read_values(in, node, "src_port", where, classify::kMaxPort);
  rule.dst_port = read_values(in, node, "dst_port", where, classify::kMaxPort);
  rule.roce_opcode = read_values(in, node, "roce_opcode", where, classify::kMaxBthOpcode);
  rule.roce_dest_qp = read_values(in, node, "roce_dest_qp", where, classify::kMaxDestQp);
  const bool implied = !rule.roce_opcode.empty() || !rule.roce_dest_qp.empty();
  rule.roce = in.get_bool(node, "roce", where, implied);
  if (!rule.roce && implied) {
    in.fail(node["roce"], where + ".roce", "roce_opcode and roce_dest_qp match only RoCEv2 frames");
  }
  return rule;
}

// list[].members: a subset of the bond's members, each once.
std::vector<std::uint16_t> read_class_members(const YamlReader& in, const YAML::Node& entry,
                                              const std::string& where,
                                              const std::vector<std::string>& members) {
  std::vector<std::uint16_t> indices;
  const YAML::Node node = entry["members"];
  if (!node.IsDefined()) return indices;
  const std::string at = where + ".members";
  in.expect_sequence(node, at);
  if (node.size() == 0) in.fail(node, at, "an empty list: leave the key out for every member");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item = at + "[" + std::to_string(i) + "]";
    const std::string name = in.scalar(node[i], item);
    const auto found = std::find(members.begin(), members.end(), name);
    if (found == members.end()) {
      std::string known;
      for (const std::string& member : members)
        known += (known.empty() ? "" : ", ") + member;
      in.fail(node[i], item,
              "\"" + name + "\" is not a member of the bond (members: " + known + ")");
    }
    const auto index = static_cast<std::uint16_t>(found - members.begin());
    if (std::find(indices.begin(), indices.end(), index) != indices.end())
      in.fail(node[i], item, "member \"" + name + "\" is listed twice");
    indices.push_back(index);
  }
  return indices;
}

// list[].ecn: {kmin_descriptors, kmax_descriptors, pmax_permille} (lib/ecn/ecn_profile.hpp); any
// key left out keeps its default.
std::optional<ecn::EcnProfile> read_class_ecn(const YamlReader& in, const YAML::Node& entry,
                                              const std::string& where) {
  const YAML::Node node = entry["ecn"];
  if (!node.IsDefined()) return std::nullopt;
  const std::string at = where + ".ecn";
  in.expect_map(node, at, {"kmin_descriptors", "kmax_descriptors", "pmax_permille"});
  ecn::EcnProfile profile;
  profile.kmin_descriptors = static_cast<std::uint32_t>(in.get_uint(
      node, "kmin_descriptors", at, 0, ecn::kMaxQueueDescriptors, profile.kmin_descriptors));
  profile.kmax_descriptors = static_cast<std::uint32_t>(in.get_uint(
      node, "kmax_descriptors", at, 1, ecn::kMaxQueueDescriptors, profile.kmax_descriptors));
  profile.pmax_permille = static_cast<std::uint32_t>(
      in.get_uint(node, "pmax_permille", at, 0, ecn::kPermille, profile.pmax_permille));
  if (std::string error = ecn::profile_error(profile); !error.empty()) {
    constexpr std::string_view kPrefix = "ecn: ";  // the key's path already says it
    if (error.starts_with(kPrefix)) error.erase(0, kPrefix.size());
    in.fail(node, at, error);
  }
  return profile;
}

// list[].rate_cap: {mbps, burst_kb}; mbps is required.
std::optional<classify::RateCap> read_class_rate_cap(const YamlReader& in, const YAML::Node& entry,
                                                     const std::string& where) {
  const YAML::Node node = entry["rate_cap"];
  if (!node.IsDefined()) return std::nullopt;
  const std::string at = where + ".rate_cap";
  in.expect_map(node, at, {"mbps", "burst_kb"});
  if (!node["mbps"].IsDefined()) in.fail(node, at, "missing required key \"mbps\"");
  classify::RateCap cap;
  cap.mbps =
      static_cast<std::uint32_t>(in.get_uint(node, "mbps", at, 1, classify::kMaxRateCapMbps, 0));
  cap.burst_kb = static_cast<std::uint32_t>(in.get_uint(
      node, "burst_kb", at, 1, classify::kMaxBurstKb, classify::default_burst_kb(cap.mbps)));
  // Below what the cap passes in 1 ms, and below a burst of jumbo frames: bursts far under the
  // cap are dropped (32 jumbo frames at once against 64 KiB: 7 pass).
  const std::uint64_t burst = std::uint64_t{cap.burst_kb} * 1024;
  const std::uint64_t wanted =
      std::min<std::uint64_t>(classify::kJumboBurstBytes, classify::bytes_per_ms(cap.mbps));
  if (burst < wanted) {
    in.warn(node["burst_kb"], at + ".burst_kb",
            std::to_string(cap.burst_kb) + " KiB is less than " +
                std::to_string((wanted + 1023) / 1024) +
                " KiB (what the cap passes in 1 ms, at most a burst of 32 jumbo frames): bursts of "
                "large frames far below the cap are dropped; leave burst_kb out for " +
                std::to_string(classify::default_burst_kb(cap.mbps)) + " KiB");
  }
  return cap;
}

std::string read_class_policy(const YamlReader& in, const YAML::Node& entry,
                              const std::string& where) {
  const std::string policy = in.get_string(entry, "policy", where, "");
  if (entry["policy"].IsDefined() && !is_policy_name(policy)) {
    in.fail(entry["policy"], where + ".policy",
            "unknown policy \"" + policy + "\" (known: " + kPolicyNames + ")");
  }
  return policy;
}

// list[].priority: the PFC priority the class rides on; absent: scheduler.congestion.priority.
std::optional<std::uint8_t> read_class_priority(const YamlReader& in, const YAML::Node& entry,
                                                const std::string& where) {
  if (!entry["priority"].IsDefined() || entry["priority"].IsNull()) return std::nullopt;
  return static_cast<std::uint8_t>(
      in.get_uint(entry, "priority", where, 0, classify::kMaxPfcPriority, 0));
}

}  // namespace

ClassifierSpec read_classes(const YamlReader& in, const YAML::Node& node, const std::string& where,
                            const std::vector<std::string>& members) {
  in.expect_map(node, where, {"default", "list", "rules"});
  ClassifierSpec spec;
  const YAML::Node list = node["list"];
  if (!list.IsDefined()) in.fail(node, where, "missing required key \"list\" (the class names)");
  in.expect_sequence(list, where + ".list");
  if (list.size() == 0) in.fail(list, where + ".list", "needs at least one class");
  if (list.size() > classify::kMaxClasses) {
    in.fail(list, where + ".list",
            "has " + std::to_string(list.size()) + " classes: a bond has at most " +
                std::to_string(classify::kMaxClasses));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + ".list[" + std::to_string(i) + "]";
    in.expect_map(
        list[i], at,
        {"name", "members", "policy", "priority", "ecn", "min_share_permille", "rate_cap"});
    std::string name = in.required_string(list[i], "name", at);
    if (!is_valid_name(name)) {
      in.fail(list[i]["name"], at, "names use letters, digits, '-' and '_' (1..32 characters)");
    }
    for (const classify::ClassSpec& seen : spec.classes) {
      if (seen.name == name) in.fail(list[i]["name"], at, "class \"" + name + "\" is listed twice");
    }
    spec.classes.push_back({std::move(name), read_class_members(in, list[i], at, members),
                            read_class_policy(in, list[i], at)});
    spec.classes.back().priority = read_class_priority(in, list[i], at);
    spec.classes.back().ecn = read_class_ecn(in, list[i], at);
    spec.classes.back().min_share_permille = static_cast<std::uint32_t>(
        in.get_uint(list[i], "min_share_permille", at, 1, classify::kPermille, 0));
    spec.classes.back().rate_cap = read_class_rate_cap(in, list[i], at);
  }
  spec.default_class = class_index(in, spec, node["default"], where + ".default",
                                   in.required_string(node, "default", where));
  if (const YAML::Node rules = node["rules"]; rules.IsDefined()) {
    in.expect_sequence(rules, where + ".rules");
    if (rules.size() > classify::kMaxRules) {
      in.fail(rules, where + ".rules",
              "has " + std::to_string(rules.size()) + " rules: a bond has at most " +
                  std::to_string(classify::kMaxRules));
    }
    for (std::size_t i = 0; i < rules.size(); ++i)
      spec.rules.push_back(
          read_rule(in, rules[i], where + ".rules[" + std::to_string(i) + "]", spec));
  }
  if (const std::string error = classify::spec_error(spec); !error.empty()) {
    in.fail(node, where, error);
  }
  return spec;
}

}  // namespace braid::config
