#include "classify/classifier.hpp"

#include <algorithm>
#include <stdexcept>

#include "flow/parser.hpp"

namespace braid::classify {
namespace {

bool contains(const ValueSet& values, std::uint32_t value) {
  return std::any_of(values.begin(), values.end(), [value](const ValueRange& range) {
    return range.first <= value && value <= range.last;
  });
}

// Sets the rule's bit for every value of a direct table it accepts; `absent` (the last index)
// only when the rule does not name the field.
template <std::size_t N>
void fill_direct(std::array<RuleMask, N>& table, const ValueSet& values, RuleMask bit) {
  for (std::size_t value = 0; value < N; ++value) {
    const bool absent = value == N - 1;
    if (values.empty() || (!absent && contains(values, static_cast<std::uint32_t>(value)))) {
      table[value] |= bit;
    }
  }
}

using FieldOf = const ValueSet& (*)(const Rule&);

IntervalTable build_intervals(const std::vector<Rule>& rules, HeaderLevel level, FieldOf field,
                              std::uint32_t max) {
  IntervalTable table;
  std::vector<std::uint32_t> starts = {0};
  for (const Rule& rule : rules) {
    if (rule.header != level) continue;
    for (const ValueRange& range : field(rule)) {
      table.used = true;
      starts.push_back(range.first);
      if (range.last < max) starts.push_back(range.last + 1);
    }
  }
  if (!table.used) return table;
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  for (const std::uint32_t start : starts) {
    RuleMask mask = 0;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const ValueSet& values = field(rules[i]);
      if (rules[i].header == level && (values.empty() || contains(values, start))) {
        mask |= RuleMask{1} << i;
      }
    }
    table.masks.push_back(mask);
  }
  table.starts = std::move(starts);
  return table;
}

LevelTables build_level(const std::vector<Rule>& rules, HeaderLevel level) {
  LevelTables tables;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& rule = rules[i];
    if (rule.header != level) continue;
    const RuleMask bit = RuleMask{1} << i;
    tables.rules |= bit;
    fill_direct(tables.pcp, rule.pcp, bit);
    fill_direct(tables.dscp, rule.dscp, bit);
    fill_direct(tables.protocol, rule.protocol, bit);
    if (!rule.needs_roce()) {
      fill_direct(tables.roce_opcode, {}, bit);
    } else {
      // Any opcode, but RoCEv2 it must be: the "not RoCEv2" slot stays clear.
      const ValueSet any_opcode = {{0, kMaxBthOpcode}};
      fill_direct(tables.roce_opcode, rule.roce_opcode.empty() ? any_opcode : rule.roce_opcode,
                  bit);
    }
    if (!rule.src_port.empty() || !rule.dst_port.empty()) tables.port_rules |= bit;
  }
  tables.src_port = build_intervals(
      rules, level, [](const Rule& rule) -> const ValueSet& { return rule.src_port; }, kMaxPort);
  tables.dst_port = build_intervals(
      rules, level, [](const Rule& rule) -> const ValueSet& { return rule.dst_port; }, kMaxPort);
  tables.roce_dest_qp = build_intervals(
      rules, level, [](const Rule& rule) -> const ValueSet& { return rule.roce_dest_qp; },
      kMaxDestQp);
  return tables;
}

}  // namespace

Classifier::Classifier(const ClassifierSpec& spec) : spec_(spec) {
  if (const std::string error = spec_error(spec); !error.empty()) {
    throw std::invalid_argument("traffic classes: " + error);
  }
  outer_ = build_level(spec.rules, HeaderLevel::outer);
  inner_ = build_level(spec.rules, HeaderLevel::inner);
  has_inner_rules_ = inner_.rules != 0;
  for (std::size_t i = 0; i < spec.rules.size(); ++i)
    rule_class_[i] = spec.rules[i].class_id;
  default_class_ = spec.default_class;
}

ClassId Classifier::classify(const flow::FlowKey& key) const {
  FrameFields fields;
  fields_from_key(key, fields);
  return classify(fields);
}

ClassId Classifier::classify(ByteSpan frame) const {
  FrameFields fields;
  if (!fields_from_frame(frame, fields)) {
    flow::FlowKey key;
    flow::parse_flow_key(frame, key);
    fields_from_key(key, fields);
  }
  return classify(fields);
}

int Classifier::first_rule(const FrameFields& fields) const {
  const RuleMask matched = matches(fields);
  return matched == 0 ? -1 : __builtin_ctzll(matched);
}

}  // namespace braid::classify
