#include "classify/classifier.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

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

PortTable build_ports(const IntervalTable& intervals) {
  PortTable table;
  table.used = intervals.used;
  if (!table.used) return table;
  constexpr std::uint32_t kBlock = 256;
  constexpr std::uint32_t kPicksLowByte = 0xFFu << 24;
  std::map<RuleMask, std::uint32_t> first_place;  // where each mask was first stored
  std::vector<std::uint32_t> block_starts;        // of the blocks stored whole
  for (std::uint32_t high = 0; high < kBlock; ++high) {
    std::vector<RuleMask> block(kBlock);
    for (std::uint32_t low = 0; low < kBlock; ++low)
      block[low] = intervals.lookup(high * kBlock + low);
    const auto at = [&table](std::uint32_t start) {
      return table.masks.begin() + static_cast<std::ptrdiff_t>(start);
    };
    const auto size = static_cast<std::uint32_t>(table.masks.size());
    if (std::all_of(block.begin(), block.end(),
                    [&block](RuleMask mask) { return mask == block[0]; })) {
      const auto [place, added] = first_place.emplace(block[0], size);
      if (added) table.masks.push_back(block[0]);
      table.blocks[high] = place->second;
      continue;
    }
    const auto same = std::find_if(
        block_starts.begin(), block_starts.end(),
        [&](std::uint32_t start) { return std::equal(block.begin(), block.end(), at(start)); });
    if (same != block_starts.end()) {
      table.blocks[high] = *same | kPicksLowByte;
      continue;
    }
    table.masks.insert(table.masks.end(), block.begin(), block.end());
    for (std::uint32_t low = 0; low < kBlock; ++low)
      first_place.emplace(block[low], size + low);
    block_starts.push_back(size);
    table.blocks[high] = size | kPicksLowByte;
  }
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
  tables.src_port = build_ports(build_intervals(
      rules, level, [](const Rule& rule) -> const ValueSet& { return rule.src_port; }, kMaxPort));
  tables.dst_port = build_ports(build_intervals(
      rules, level, [](const Rule& rule) -> const ValueSet& { return rule.dst_port; }, kMaxPort));
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
  return classify(fields_of(frame));
}

int Classifier::first_rule(const FrameFields& fields) const {
  const RuleMask matched = matches(fields);
  return matched == 0 ? -1 : __builtin_ctzll(matched);
}

}  // namespace braid::classify
