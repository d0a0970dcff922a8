#include "config/class_checks.hpp"

#include <cstdint>
#include <vector>

#include "classify/roce_reach.hpp"

namespace braid::config {
namespace {

// What a member can carry is measured from what it sent while its queue stayed busy.
void refuse_share_without_source(const YamlReader& in, const YAML::Node& node,
                                 const std::string& where, const BondConfig& bond) {
  for (const classify::ClassSpec& c : bond.classes.classes) {
    if (c.reserved() && bond.scheduler.congestion.source == "none") {
      in.fail(node["classes"], where + ".classes",
              "class \"" + c.name +
                  "\" has a min_share_permille, which needs a congestion source "
                  "(scheduler.congestion.source): its packets-sent counters measure what a "
                  "member can carry");
    }
  }
}

// Spray on traffic RoCEv2 can reach, unless the operator says its receivers place out of order.
void refuse_spray_on_roce(const YamlReader& in, const YAML::Node& node, const std::string& where,
                          const BondConfig& bond) {
  if (bond.scheduler.out_of_order_placement) return;
  const std::vector<classify::ClassSpec>& classes = bond.classes.classes;
  if (classes.empty() && bond.scheduler.policy == "spray") {
    in.fail(node["scheduler"]["policy"], where + ".scheduler.policy",
            classify::spray_on_roce_error(bond.classes, 0, "the bond"));
  }
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const std::string& policy =
        classes[c].policy.empty() ? bond.scheduler.policy : classes[c].policy;
    if (policy != "spray") continue;
    const std::string error = classify::spray_on_roce_error(
        bond.classes, static_cast<classify::ClassId>(c), "class \"" + classes[c].name + "\"");
    if (!error.empty()) in.fail(node["classes"], where + ".classes", error);
  }
}

// What braid drops of a class by design (its rate cap's excess, or what it gives way to reserved
// shares on a short member) riding on the bond's PFC priority: if the switches keep that priority
// lossless, the class is not. And reserved shares that leave the other classes next to nothing.
void warn_about_class_drops(const YamlReader& in, const YAML::Node& node, const std::string& where,
                            const BondConfig& bond) {
  const std::vector<classify::ClassSpec>& classes = bond.classes.classes;
  std::uint32_t reserved = 0;
  for (const classify::ClassSpec& c : classes)
    reserved += c.min_share_permille;
  const std::uint32_t pfc = bond.scheduler.congestion.priority;
  for (const classify::ClassSpec& c : classes) {
    const bool gives_way = reserved != 0 && !c.reserved();
    if ((!c.rate_cap && !gives_way) || c.priority.value_or(pfc) != pfc) continue;
    const std::string priority = std::to_string(pfc);
    in.warn(node["classes"], where + ".classes",
            "class \"" + c.name + "\" " +
                (c.rate_cap ? "has a rate cap" : "gives way to the reserved shares") +
                " and rides on PFC priority " + priority +
                (c.priority ? "" : " (scheduler.congestion.priority)") +
                ": braid drops what is over its limit, so if the switches keep priority " +
                priority +
                " lossless, this class is not; give it a lossy priority of its own "
                "(priority: 0)");
  }
  if (reserved > 900) {
    in.warn(node["classes"], where + ".classes",
            "the reserved shares add up to " + std::to_string(reserved) +
                " permille: the classes without one keep " + std::to_string(1000 - reserved) +
                " permille of a short member together, next to nothing; leave them at least 100");
  }
}

}  // namespace

void check_classes_with_scheduler(const YamlReader& in, const YAML::Node& node,
                                  const std::string& where, const BondConfig& bond) {
  refuse_share_without_source(in, node, where, bond);
  refuse_spray_on_roce(in, node, where, bond);
  warn_about_class_drops(in, node, where, bond);
}

}  // namespace braid::config
