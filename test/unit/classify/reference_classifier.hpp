// The classification rules read literally, rule by rule and field by field: the oracle the
// compiled tables are checked against (classifier_test's random rules, fuzz_classifier).
#pragma once

#include "classify/class_spec.hpp"
#include "classify/frame_fields.hpp"

namespace braid::classify::test {

inline bool in_set(const ValueSet& values, std::uint32_t value) {
  if (values.empty()) return true;
  for (const ValueRange& range : values) {
    if (range.first <= value && value <= range.last) return true;
  }
  return false;
}

inline bool rule_matches(const Rule& rule, const FrameFields& frame) {
  if (rule.header == HeaderLevel::inner && !frame.tunnel) return false;
  const HeaderFields& f = rule.header == HeaderLevel::inner ? frame.inner : frame.outer;
  if (!rule.pcp.empty() && (f.pcp == kNoPcp || !in_set(rule.pcp, f.pcp))) return false;
  if (!rule.dscp.empty() && (f.dscp == kNoDscp || !in_set(rule.dscp, f.dscp))) return false;
  if (!rule.protocol.empty() && (f.protocol == kNoProtocol || !in_set(rule.protocol, f.protocol)))
    return false;
  if (!rule.src_port.empty() && (!f.has_ports || !in_set(rule.src_port, f.src_port))) return false;
  if (!rule.dst_port.empty() && (!f.has_ports || !in_set(rule.dst_port, f.dst_port))) return false;
  if (rule.needs_roce()) {
    if (f.roce_opcode == kNoRoceOpcode) return false;
    if (!in_set(rule.roce_opcode, f.roce_opcode)) return false;
    if (!in_set(rule.roce_dest_qp, f.roce_dest_qp)) return false;
  }
  return true;
}

// The first matching rule's index, or -1.
inline int reference_first_rule(const ClassifierSpec& spec, const FrameFields& frame) {
  for (std::size_t i = 0; i < spec.rules.size(); ++i) {
    if (rule_matches(spec.rules[i], frame)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace braid::classify::test
