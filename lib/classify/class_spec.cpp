#include "classify/class_spec.hpp"

#include <array>
#include <utility>

namespace braid::classify {
namespace {

// The IP protocols a rule may name (IANA protocol numbers).
constexpr std::array<std::pair<std::string_view, std::uint32_t>, 6> kProtocolNames{{
    {"icmp", 1},
    {"tcp", 6},
    {"udp", 17},
    {"gre", 47},
    {"icmpv6", 58},
    {"sctp", 132},
}};

struct FieldView {
  std::string_view name;
  const ValueSet& values;
  std::uint32_t max;
};

std::array<FieldView, 7> fields_of(const Rule& rule) {
  return {{{"dscp", rule.dscp, kMaxDscp},
           {"pcp", rule.pcp, kMaxPcp},
           {"protocol", rule.protocol, kMaxProtocol},
           {"src_port", rule.src_port, kMaxPort},
           {"dst_port", rule.dst_port, kMaxPort},
           {"roce_opcode", rule.roce_opcode, kMaxBthOpcode},
           {"roce_dest_qp", rule.roce_dest_qp, kMaxDestQp}}};
}

std::string range_text(const ValueRange& range) {
  std::string text = std::to_string(range.first);
  if (range.last != range.first) text += "-" + std::to_string(range.last);
  return text;
}

std::string rule_error(const Rule& rule, std::size_t classes) {
  if (rule.class_id >= classes) {
    return "names class " + std::to_string(rule.class_id) + " of " + std::to_string(classes);
  }
  for (const FieldView& field : fields_of(rule)) {
    for (const ValueRange& range : field.values) {
      if (range.first > range.last) {
        return std::string(field.name) + " range " + std::to_string(range.first) + "-" +
               std::to_string(range.last) + " is reversed (write the lower bound first)";
      }
      if (range.last > field.max) {
        return std::string(field.name) + " " + std::to_string(range.last) +
               " is out of range (0.." + std::to_string(field.max) + ")";
      }
    }
  }
  if (rule.header == HeaderLevel::outer && rule.matches_anything()) {
    return "names no field, so it matches every frame (the default class is for that)";
  }
  return "";
}

}  // namespace

std::string spec_error(const ClassifierSpec& spec) {
  if (spec.classes.empty()) {
    if (!spec.rules.empty()) return "rules but no classes";
    return spec.default_class == 0 ? "" : "a default class but no classes";
  }
  if (spec.classes.size() > kMaxClasses) {
    return std::to_string(spec.classes.size()) + " classes: a bond has at most " +
           std::to_string(kMaxClasses);
  }
  for (std::size_t i = 0; i < spec.classes.size(); ++i) {
    const std::string& name = spec.classes[i].name;
    if (name.empty()) return "class " + std::to_string(i) + " has no name";
    for (std::size_t j = 0; j < i; ++j) {
      if (spec.classes[j].name == name) return "class \"" + name + "\" is defined twice";
    }
  }
  if (spec.default_class >= spec.classes.size()) return "the default class is not a class";
  if (spec.rules.size() > kMaxRules) {
    return std::to_string(spec.rules.size()) + " rules: a bond has at most " +
           std::to_string(kMaxRules);
  }
  std::vector<bool> reached(spec.classes.size(), false);
  reached[spec.default_class] = true;
  for (std::size_t i = 0; i < spec.rules.size(); ++i) {
    if (std::string error = rule_error(spec.rules[i], spec.classes.size()); !error.empty()) {
      return "rules[" + std::to_string(i) + "] " + error;
    }
    reached[spec.rules[i].class_id] = true;
  }
  std::uint32_t reserved = 0;
  std::size_t reserving = 0;
  for (const ClassSpec& c : spec.classes) {
    if (c.min_share_permille > kPermille) {
      return "class \"" + c.name + "\" reserves " + std::to_string(c.min_share_permille) +
             " permille: at most 1000";
    }
    reserved += c.min_share_permille;
    reserving += c.reserved() ? 1 : 0;
    if (c.rate_cap && (c.rate_cap->mbps == 0 || c.rate_cap->mbps > kMaxRateCapMbps ||
                       c.rate_cap->burst_kb == 0 || c.rate_cap->burst_kb > kMaxBurstKb)) {
      return "class \"" + c.name + "\" has a rate cap out of range";
    }
  }
  if (reserved > kPermille) {
    return "the classes' min_share_permille add up to " + std::to_string(reserved) +
           ": at most 1000 (each is a share of the same member)";
  }
  if (reserving != 0 && reserving == spec.classes.size()) {
    return "every class has a min_share_permille: one without is needed to give way when a "
           "member is short";
  }
  for (std::size_t i = 0; i < spec.classes.size(); ++i) {
    if (!reached[i]) {
      return "class \"" + spec.classes[i].name +
             "\" gets no traffic: no rule names it and it is not the default";
    }
  }
  return "";
}

std::string describe(const Rule& rule) {
  std::string text = rule.header == HeaderLevel::inner ? "inner" : "";
  for (const FieldView& field : fields_of(rule)) {
    if (field.values.empty()) continue;
    text += (text.empty() ? "" : " ") + std::string(field.name) + " ";
    for (std::size_t i = 0; i < field.values.size(); ++i) {
      const ValueRange& range = field.values[i];
      const std::string_view name = field.name == "protocol" && range.first == range.last
                                        ? protocol_name(range.first)
                                        : std::string_view{};
      text += (i == 0 ? "" : ",") + (name.empty() ? range_text(range) : std::string(name));
    }
  }
  // roce_opcode and roce_dest_qp imply roce: name it only when it stands alone.
  if (rule.roce && rule.roce_opcode.empty() && rule.roce_dest_qp.empty()) {
    text += text.empty() ? "roce" : " roce";
  }
  return text.empty() ? "any" : text;
}

std::string_view protocol_name(std::uint32_t protocol) {
  for (const auto& [name, number] : kProtocolNames) {
    if (number == protocol) return name;
  }
  return "";
}

int protocol_number(std::string_view name) {
  for (const auto& [known, number] : kProtocolNames) {
    if (known == name) return static_cast<int>(number);
  }
  return -1;
}

}  // namespace braid::classify
