#include "bond/dpdk/class_commands.hpp"

#include <optional>
#include <string>

#include "bond/dpdk/bond.hpp"
#include "bond/dpdk/bond_commands.hpp"

namespace braid::bond {
namespace {

using control::Args;
using control::MetricType;
using control::Output;
using control::Value;

// "kmin-kmax pmax" of a class's ECN profile, "off" without one.
std::string ecn_text(const std::optional<ecn::EcnProfile>& profile) {
  if (!profile) return "off";
  return std::to_string(profile->kmin_descriptors) + "-" +
         std::to_string(profile->kmax_descriptors) + " " +
         std::to_string(profile->pmax_permille / 10) + "." +
         std::to_string(profile->pmax_permille % 10) + "%";
}

// "50.0%" of a reserved share, "-" for none.
std::string min_share_text(std::uint32_t permille) {
  if (permille == 0) return "-";
  return std::to_string(permille / 10) + "." + std::to_string(permille % 10) + "%";
}

// "40000mbps/64k" of a rate cap (its rate and burst), "-" for none.
std::string rate_cap_text(const std::optional<classify::RateCap>& cap) {
  if (!cap) return "-";
  return std::to_string(cap->mbps) + "mbps/" + std::to_string(cap->burst_kb) + "k";
}

void show_classes(const Bond& bond, Output& out) {
  Output& section = out.section(bond.name());
  const classify::Classifier* classifier = bond.classifier();
  if (classifier == nullptr) {
    section.value("classes", "none");
    return;
  }
  const classify::ClassifierSpec& spec = classifier->spec();
  const std::array<std::uint64_t, classify::kMaxClasses> packets = bond.class_packets();
  const std::vector<std::string>& names = bond.config().members;
  const auto marked = bond.class_ecn_marked();
  const auto not_ect = bond.class_ecn_not_ect();
  const auto rate_capped = bond.class_rate_capped();
  const auto gave_way = bond.class_gave_way();
  const auto limits = bond.class_share_limits();
  const auto storm_dropped = bond.class_storm_dropped();
  const config::PfcWatchdogConfig& watchdog = bond.config().scheduler.pfc_watchdog;
  const bool storm_drop = watchdog.enabled && watchdog.action == config::StormAction::kDrop;
  control::Table& table =
      section.table("classes", {"class", "default", "rules", "members", "policy", "priority", "ecn",
                                "min_share", "rate_cap", "packets", "ecn_not_ect", "rate_capped"});
  for (std::size_t c = 0; c < spec.classes.size(); ++c) {
    std::string rules;
    for (std::size_t r = 0; r < spec.rules.size(); ++r) {
      if (spec.rules[r].class_id != c) continue;
      rules += (rules.empty() ? "" : ",") + std::to_string(r);
    }
    std::string members;
    for (const std::uint16_t m : spec.classes[c].members)
      members += (members.empty() ? "" : ",") + names[m];
    const std::string& policy = spec.classes[c].policy;
    const bool ecn = spec.classes[c].ecn.has_value();
    // The PFC priority whose pauses the class's scheduler reads.
    table.row({spec.classes[c].name, spec.default_class == c, rules.empty() ? "-" : rules,
               members.empty() ? "all" : members, policy.empty() ? "bond" : policy,
               std::uint64_t{bond.class_priority(c)}, ecn_text(spec.classes[c].ecn),
               min_share_text(spec.classes[c].min_share_permille),
               rate_cap_text(spec.classes[c].rate_cap), packets[c],
               ecn ? Value(not_ect[c]) : Value::missing(),
               spec.classes[c].rate_cap ? Value(rate_capped[c]) : Value::missing()});
  }
  // Where each class's table sends its frames now: its buckets per member; for a class that gives
  // way, what it may send there now (limit_pps: "-" while the member is not short) and what it
  // dropped giving way; with the PFC watchdog on, whether the class's priority storms there
  // (storm: yes/no) and, under action drop, what that dropped.
  control::Table& shares =
      section.table("shares", {"class", "member", "buckets", "share", "ecn_marked", "limit_pps",
                               "gave_way", "storm", "storm_dropped"});
  for (std::size_t c = 0; c < spec.classes.size(); ++c) {
    const std::span<const MemberIndex> buckets = bond.assignment(c);
    const std::vector<std::uint32_t> counts = bucket_counts(buckets, names.size());
    for (std::size_t m = 0; m < names.size(); ++m) {
      const bool stormed = (bond.stormed_classes(m) >> c & 1u) != 0;
      if (counts[m] == 0 && !bond.class_distributes(c, m) && !stormed) continue;
      const bool yields = spec.gives_way(c);
      const std::uint64_t limit = limits[c][m];
      shares.row({spec.classes[c].name, names[m], counts[m], share_text(counts[m], buckets.size()),
                  spec.classes[c].ecn ? Value(marked[c][m]) : Value::missing(),
                  yields && limit != kNoShareLimit ? Value(limit) : Value::missing(),
                  yields ? Value(gave_way[c][m]) : Value::missing(),
                  watchdog.enabled ? Value(stormed) : Value::missing(),
                  storm_drop ? Value(storm_dropped[c][m]) : Value::missing()});
    }
  }
}

void class_metrics(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  w.family("braid_class_packets_total",
           "data frames the bond's workers classified into the traffic class",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    if (classifier == nullptr) continue;
    const std::array<std::uint64_t, classify::kMaxClasses> packets = bond->class_packets();
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c)
      w.sample({{"bond", bond->name()}, {"class", classifier->spec().classes[c].name}}, packets[c]);
  }
  w.family("braid_class_ecn_marked_total",
           "packets of the traffic class braid marked CE on the member (classes.list[].ecn)",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    if (classifier == nullptr) continue;
    const auto marked = bond->class_ecn_marked();
    const std::vector<std::string>& names = bond->config().members;
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c) {
      if (!classifier->spec().classes[c].ecn) continue;
      for (std::size_t m = 0; m < names.size(); ++m) {
        w.sample({{"bond", bond->name()},
                  {"class", classifier->spec().classes[c].name},
                  {"member", names[m]}},
                 marked[c][m]);
      }
    }
  }
  w.family("braid_class_ecn_not_ect_total",
           "packets of the traffic class chosen for a CE mark but not ECT, left alone",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    if (classifier == nullptr) continue;
    const auto not_ect = bond->class_ecn_not_ect();
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c) {
      if (!classifier->spec().classes[c].ecn) continue;
      w.sample({{"bond", bond->name()}, {"class", classifier->spec().classes[c].name}}, not_ect[c]);
    }
  }
  w.family("braid_class_rate_capped_total",
           "packets of the traffic class dropped over its rate cap (classes.list[].rate_cap)",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    if (classifier == nullptr) continue;
    const auto capped = bond->class_rate_capped();
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c) {
      if (!classifier->spec().classes[c].rate_cap) continue;
      w.sample({{"bond", bond->name()}, {"class", classifier->spec().classes[c].name}}, capped[c]);
    }
  }
  w.family("braid_class_gave_way_total",
           "packets of the traffic class dropped on the member to leave it to the reserved shares",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    if (classifier == nullptr || !classifier->spec().reserving()) continue;
    const auto gave_way = bond->class_gave_way();
    const std::vector<std::string>& names = bond->config().members;
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c) {
      if (!classifier->spec().gives_way(c)) continue;
      for (std::size_t m = 0; m < names.size(); ++m) {
        w.sample({{"bond", bond->name()},
                  {"class", classifier->spec().classes[c].name},
                  {"member", names[m]}},
                 gave_way[c][m]);
      }
    }
  }
  w.family("braid_class_storm_dropped_total",
           "packets of the traffic class dropped on the member while the class's PFC priority "
           "storms there (scheduler.pfc_watchdog action drop)",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    const config::PfcWatchdogConfig& watchdog = bond->config().scheduler.pfc_watchdog;
    if (classifier == nullptr || !watchdog.enabled || watchdog.action != config::StormAction::kDrop)
      continue;
    const auto dropped = bond->class_storm_dropped();
    const std::vector<std::string>& names = bond->config().members;
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c) {
      for (std::size_t m = 0; m < names.size(); ++m) {
        w.sample({{"bond", bond->name()},
                  {"class", classifier->spec().classes[c].name},
                  {"member", names[m]}},
                 dropped[c][m]);
      }
    }
  }
  w.family("braid_class_member_buckets",
           "buckets of the traffic class's own table that the member holds now",
           MetricType::kGauge);
  for (Bond* bond : bonds) {
    const classify::Classifier* classifier = bond->classifier();
    if (classifier == nullptr) continue;
    const std::vector<std::string>& names = bond->config().members;
    for (std::size_t c = 0; c < classifier->spec().classes.size(); ++c) {
      const std::vector<std::uint32_t> counts = bucket_counts(bond->assignment(c), names.size());
      for (std::size_t m = 0; m < names.size(); ++m) {
        w.sample({{"bond", bond->name()},
                  {"class", classifier->spec().classes[c].name},
                  {"member", names[m]}},
                 std::uint64_t{counts[m]});
      }
    }
  }
}

}  // namespace

void register_class_commands(control::ControlPlane& control, const std::vector<Bond*>& bonds) {
  control.commands().add(
      "show classes [<bond>]",
      "per traffic class: default, rules (by index), members, policy, PFC priority, ECN "
      "profile, reserved share, rate cap, packets, drops; each class's buckets, CE marks, share "
      "limit, give-way drops and PFC storm per member",
      [bonds](const Args& args, Output& out) {
        for (Bond* bond : chosen_bonds(bonds, args))
          show_classes(*bond, out);
      });
  control.telemetry().add_command("/braid/classes", "traffic classes per bond: rules, packets",
                                  control.commands(), "show classes");
  control.metrics().add_collector([bonds](control::MetricWriter& w) { class_metrics(w, bonds); });
}

}  // namespace braid::bond
