#include "classify/roce_reach.hpp"

#include <algorithm>

namespace braid::classify {
namespace {

constexpr std::uint32_t kUdp = 17;
constexpr std::uint32_t kRoceV2Port = 4791;  // IANA: RoCEv2

bool admits(const ValueSet& set, std::uint32_t value) {
  return set.empty() || std::any_of(set.begin(), set.end(), [value](const ValueRange& range) {
           return range.first <= value && value <= range.last;
         });
}

bool can_match_roce(const Rule& rule) {
  return rule.header == HeaderLevel::outer && admits(rule.protocol, kUdp) &&
         admits(rule.dst_port, kRoceV2Port);
}

bool takes_all_roce(const Rule& rule) {
  return can_match_roce(rule) && rule.dscp.empty() && rule.pcp.empty() && rule.src_port.empty() &&
         rule.roce_opcode.empty() && rule.roce_dest_qp.empty();
}

}  // namespace

std::string roce_reach(const ClassifierSpec& spec, ClassId id) {
  if (!spec.enabled()) return "the bond has no traffic classes: RoCEv2 takes its one table";
  for (std::size_t i = 0; i < spec.rules.size(); ++i) {
    const Rule& rule = spec.rules[i];
    if (rule.class_id == id && can_match_roce(rule))
      return "rules[" + std::to_string(i) + "] can send RoCEv2 to it";
    if (takes_all_roce(rule)) return "";
  }
  if (id == spec.default_class)
    return "it is the default class and no rule before takes every RoCEv2 frame";
  return "";
}

std::string spray_on_roce_error(const ClassifierSpec& spec, ClassId id, std::string_view subject) {
  const std::string reach = roce_reach(spec, id);
  if (reach.empty()) return "";
  return std::string(subject) + " uses policy spray and " + reach +
         ": spray reorders packets within a flow, and a RoCE RC receiver takes a packet out of "
         "order as a loss (it NAKs, the sender resends everything after it); give RoCEv2 a "
         "class of its own, with a rule {roce: true} first, or set "
         "scheduler.out_of_order_placement: true if every RoCE receiver behind the bond places "
         "packets out of order";
}

}  // namespace braid::classify
