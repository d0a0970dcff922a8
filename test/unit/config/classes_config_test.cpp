// bonds[].classes: the storage-gateway example of doc/classes.md loads into the spec it means,
// and each kind of mistake is refused with the key, the line and what is wrong.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "config/config_loader.hpp"
#include "config_text.hpp"

namespace braid::config {
namespace {

constexpr const char* kStorageClasses = R"(
      default: bulk
      list:
        - name: replication
        - name: frontend
        - name: bulk
      rules:
        - {class: replication, pcp: 3, roce: true}
        - {class: frontend, protocol: tcp, dst_port: [4420, 3260]}
        - {class: frontend, dscp: [34, "40-47"]}
        - {class: replication, header: inner, roce_dest_qp: "256-511", roce_opcode: [6, 7, 8, 10]}
        - {class: bulk, protocol: [udp, 132], src_port: 5000-5999}
)";

TEST(ClassesConfig, StorageGatewayExample) {
  const Config config = parse_config(two_member_bond("classes") + kStorageClasses, "c.yaml");
  const classify::ClassifierSpec& spec = config.bonds[0].classes;
  ASSERT_EQ(spec.classes.size(), 3u);
  EXPECT_EQ(spec.classes[0].name, "replication");
  EXPECT_EQ(spec.classes[2].name, "bulk");
  EXPECT_EQ(spec.default_class, 2);
  ASSERT_EQ(spec.rules.size(), 5u);
  EXPECT_EQ(classify::describe(spec.rules[0]), "pcp 3 roce");
  EXPECT_EQ(spec.rules[1].class_id, 1);
  EXPECT_EQ(classify::describe(spec.rules[1]), "protocol tcp dst_port 4420,3260");
  EXPECT_EQ(classify::describe(spec.rules[2]), "dscp 34,40-47");
  EXPECT_EQ(spec.rules[3].header, classify::HeaderLevel::inner);
  EXPECT_TRUE(spec.rules[3].roce);
  EXPECT_EQ(classify::describe(spec.rules[3]), "inner roce_opcode 6,7,8,10 roce_dest_qp 256-511");
  EXPECT_EQ(classify::describe(spec.rules[4]), "protocol udp,sctp src_port 5000-5999");
  // Members and policy: the ones named, or every member and the bond's policy.
  const Config pinned = parse_config(two_member_bond("classes") +
                                         "\n      default: b\n      list: [{name: a, members: "
                                         "[m1], policy: lqf}, {name: b}]\n      rules: [{class: "
                                         "a, pcp: 3}]\n",
                                     "c.yaml");
  const classify::ClassifierSpec& two = pinned.bonds[0].classes;
  EXPECT_EQ(two.classes[0].members, std::vector<std::uint16_t>{1});
  EXPECT_EQ(two.classes[0].policy, "lqf");
  EXPECT_TRUE(two.classes[1].members.empty());
  EXPECT_TRUE(two.classes[1].policy.empty());
  EXPECT_FALSE(two.classes[0].priority.has_value());  // rides on scheduler.congestion.priority
  // ECN: off unless named; keys left out keep the profile's defaults.
  EXPECT_FALSE(two.classes[0].ecn.has_value());
  const Config marked = parse_config(two_member_bond("classes") +
                                         "\n      default: a\n      list: [{name: a, ecn: "
                                         "{kmax_descriptors: 300, pmax_permille: 0}}]\n",
                                     "c.yaml");
  const std::optional<ecn::EcnProfile>& profile = marked.bonds[0].classes.classes[0].ecn;
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->kmin_descriptors, 128u);
  EXPECT_EQ(profile->kmax_descriptors, 300u);
  EXPECT_EQ(profile->pmax_permille, 0u);
  // No classes section: no classes.
  EXPECT_FALSE(
      parse_config(two_member_bond("mode") + "static\n", "c.yaml").bonds[0].classes.enabled());
}

struct BadClasses {
  const char* name;
  std::string section;  // under `classes:`
  std::string error;
};

class ClassesConfigErrors : public testing::TestWithParam<BadClasses> {};

TEST_P(ClassesConfigErrors, NameTheKeyAndTheProblem) {
  const std::string error = error_of(two_member_bond("classes") + GetParam().section);
  EXPECT_NE(error.find(GetParam().error), std::string::npos) << "got: " << error;
  EXPECT_NE(error.find("test.yaml:"), std::string::npos) << "no file and line: " << error;
}

const std::string kTwo = "\n      default: b\n      list: [{name: a}, {name: b}]\n      rules:\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, ClassesConfigErrors,
    testing::Values(
        BadClasses{
            "unknown_key", "\n      default: a\n      list: [{name: a}]\n      colour: red\n",
            "bonds[0] \"uplink\".classes: unknown key \"colour\" (known: default, list, rules)"},
        BadClasses{"unknown_rule_field", kTwo + "        - {class: a, vlan: 3}\n",
                   "classes.rules[0]: unknown key \"vlan\""},
        BadClasses{"dscp_above_63", kTwo + "        - {class: a, dscp: 64}\n",
                   "classes.rules[0].dscp: 64 is out of range (0..63)"},
        BadClasses{"pcp_above_7", kTwo + "        - {class: a, pcp: [3, 8]}\n",
                   "classes.rules[0].pcp[1]: 8 is out of range (0..7)"},
        BadClasses{"port_range_reversed", kTwo + "        - {class: a, dst_port: 5000-4000}\n",
                   "classes.rules[0].dst_port: range 5000-4000 is reversed"},
        BadClasses{"port_too_big", kTwo + "        - {class: a, src_port: 70000}\n",
                   "src_port: 70000 is out of range (0..65535)"},
        BadClasses{"not_a_number", kTwo + "        - {class: a, dscp: ef}\n",
                   "dscp: expected a number or a range like 4420-4421, got \"ef\""},
        BadClasses{"unknown_protocol", kTwo + "        - {class: a, protocol: esp}\n",
                   "or a protocol name (icmp, tcp, udp, gre, icmpv6, sctp), got \"esp\""},
        BadClasses{"empty_list", kTwo + "        - {class: a, dscp: []}\n",
                   "an empty list matches nothing"},
        BadClasses{"nine_classes",
                   "\n      default: a\n      list: [{name: a}, {name: b}, {name: c}, {name: d}, "
                   "{name: e}, {name: f}, {name: g}, {name: h}, {name: i}]\n",
                   "classes.list: has 9 classes: a bond has at most 8"},
        BadClasses{"duplicate_name", "\n      default: a\n      list: [{name: a}, {name: a}]\n",
                   "classes.list[1]: class \"a\" is listed twice"},
        BadClasses{"bad_name", "\n      default: a\n      list: [{name: \"a b\"}]\n",
                   "classes.list[0]: names use letters"},
        BadClasses{"no_list", "\n      default: a\n", "missing required key \"list\""},
        BadClasses{"no_default", "\n      list: [{name: a}]\n", "missing required key \"default\""},
        BadClasses{"unknown_default", "\n      default: c\n      list: [{name: a}, {name: b}]\n",
                   "classes.default: unknown class \"c\" (classes.list has: a, b)"},
        BadClasses{"rule_names_unknown_class", kTwo + "        - {class: x, pcp: 3}\n",
                   "classes.rules[0].class: unknown class \"x\" (classes.list has: a, b)"},
        BadClasses{"rule_without_class", kTwo + "        - {pcp: 3}\n",
                   "classes.rules[0]: missing required key \"class\""},
        BadClasses{"rule_without_field", kTwo + "        - {class: a}\n",
                   "classes: rules[0] names no field, so it matches every frame"},
        BadClasses{"unreachable_class", "\n      default: a\n      list: [{name: a}, {name: b}]\n",
                   "classes: class \"b\" gets no traffic: no rule names it and it is not the "
                   "default"},
        BadClasses{"bad_header", kTwo + "        - {class: a, header: middle, pcp: 1}\n",
                   "rules[0].header: expected outer or inner"},
        BadClasses{"roce_false_with_qp",
                   kTwo + "        - {class: a, roce: false, roce_dest_qp: 5}\n",
                   "rules[0].roce: roce_opcode and roce_dest_qp match only RoCEv2 frames"},
        BadClasses{"class_member_not_in_bond",
                   "\n      default: a\n      list: [{name: a, members: [m0, p9]}]\n",
                   "classes.list[0].members[1]: \"p9\" is not a member of the bond (members: "
                   "m0, m1)"},
        BadClasses{"class_member_twice",
                   "\n      default: a\n      list: [{name: a, members: [m1, m1]}]\n",
                   "classes.list[0].members[1]: member \"m1\" is listed twice"},
        BadClasses{"class_members_empty",
                   "\n      default: a\n      list: [{name: a, members: []}]\n",
                   "classes.list[0].members: an empty list"},
        BadClasses{"class_policy_unknown",
                   "\n      default: a\n      list: [{name: a, policy: fastest}]\n",
                   "classes.list[0].policy: unknown policy \"fastest\" (known: hash, wrr, lqf, "
                   "adaptive, latency, spray)"},
        BadClasses{"class_unknown_key", "\n      default: a\n      list: [{name: a, share: 5}]\n",
                   "classes.list[0]: unknown key \"share\""},
        BadClasses{"class_priority_above_7",
                   "\n      default: a\n      list: [{name: a, priority: 8}]\n",
                   "classes.list[0].priority: must be 0..7, got 8"},
        BadClasses{"class_priority_not_a_number",
                   "\n      default: a\n      list: [{name: a, priority: high}]\n",
                   "classes.list[0].priority: expected a whole number 0..7, got \"high\""},
        BadClasses{"class_priority_negative",
                   "\n      default: a\n      list: [{name: a, priority: -1}]\n",
                   "classes.list[0].priority: expected a whole number 0..7, got \"-1\""},
        BadClasses{"class_priority_fraction",
                   "\n      default: a\n      list: [{name: a, priority: 3.5}]\n",
                   "classes.list[0].priority: expected a whole number 0..7, got \"3.5\""},
        BadClasses{"ecn_kmax_below_kmin",
                   "\n      default: a\n      list: [{name: a, ecn: {kmin_descriptors: 200, "
                   "kmax_descriptors: 100}}]\n",
                   "classes.list[0].ecn: kmax (100 descriptors) must be above kmin (200)"},
        BadClasses{"ecn_pmax_above_1000",
                   "\n      default: a\n      list: [{name: a, ecn: {pmax_permille: 1001}}]\n",
                   "classes.list[0].ecn.pmax_permille"},
        BadClasses{"ecn_unknown_key",
                   "\n      default: a\n      list: [{name: a, ecn: {threshold: 5}}]\n",
                   "classes.list[0].ecn: unknown key \"threshold\""},
        BadClasses{"share_above_1000",
                   "\n      default: a\n      list: [{name: a}, {name: b, min_share_permille: "
                   "1001}]\n      rules: [{class: b, pcp: 3}]\n",
                   "classes.list[1].min_share_permille: must be 1..1000, got 1001"},
        BadClasses{"shares_above_1000",
                   "\n      default: c\n      list: [{name: a, min_share_permille: 600}, {name: b, "
                   "min_share_permille: 500}, {name: c}]\n      rules: [{class: a, pcp: 3}, "
                   "{class: b, pcp: 4}]\n",
                   "classes: the classes' min_share_permille add up to 1100: at most 1000"},
        BadClasses{"every_class_reserved",
                   "\n      default: a\n      list: [{name: a, min_share_permille: 500}]\n",
                   "classes: every class has a min_share_permille: one without is needed to "
                   "give way"},
        BadClasses{"rate_cap_without_mbps",
                   "\n      default: a\n      list: [{name: a, rate_cap: {burst_kb: 8}}]\n",
                   "classes.list[0].rate_cap: missing required key \"mbps\""},
        BadClasses{"rate_cap_zero",
                   "\n      default: a\n      list: [{name: a, rate_cap: {mbps: 0}}]\n",
                   "classes.list[0].rate_cap.mbps: must be 1..800000, got 0"},
        BadClasses{"rate_cap_unknown_key",
                   "\n      default: a\n      list: [{name: a, rate_cap: {gbps: 1}}]\n",
                   "classes.list[0].rate_cap: unknown key \"gbps\""},
        BadClasses{"qp_above_24_bits", kTwo + "        - {class: a, roce_dest_qp: 16777216}\n",
                   "roce_dest_qp: 16777216 is out of range (0..16777215)"}),
    [](const testing::TestParamInfo<BadClasses>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(ClassesConfig, EachClassMayNameThePfcPriorityItRidesOn) {
  const Config config = parse_config(two_member_bond("classes") +
                                         "\n      default: be\n      list: [{name: roce, "
                                         "priority: 3}, {name: be, priority: 0}, {name: rest}]\n"
                                         "      rules: [{class: roce, pcp: 3}, {class: rest, "
                                         "pcp: 5}]\n",
                                     "c.yaml");
  const std::vector<classify::ClassSpec>& classes = config.bonds[0].classes.classes;
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0].priority, std::optional<std::uint8_t>(3));
  EXPECT_EQ(classes[1].priority, std::optional<std::uint8_t>(0));
  EXPECT_FALSE(classes[2].priority.has_value());
}

TEST(ClassesConfig, ReservedSharesAndRateCaps) {
  const Config config = parse_config(two_member_bond("scheduler") +
                                         "{congestion: {source: sim}}\n    classes:\n      "
                                         "default: bulk\n      list: [{name: replication, "
                                         "min_share_permille: 500}, {name: bulk, rate_cap: "
                                         "{mbps: 2500}}, {name: backup, rate_cap: {mbps: 100, "
                                         "burst_kb: 16}}]\n      rules: [{class: replication, "
                                         "pcp: 3}, {class: backup, dst_port: 873}]\n",
                                     "c.yaml");
  const std::vector<classify::ClassSpec>& classes = config.bonds[0].classes.classes;
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0].min_share_permille, 500u);
  EXPECT_TRUE(classes[0].reserved());
  EXPECT_FALSE(classes[0].rate_cap.has_value());
  EXPECT_FALSE(classes[1].reserved());
  ASSERT_TRUE(classes[1].rate_cap.has_value());
  EXPECT_EQ(classes[1].rate_cap->mbps, 2500u);
  EXPECT_EQ(classes[1].rate_cap->burst_kb, classify::default_burst_kb(2500));
  EXPECT_EQ(classes[2].rate_cap->burst_kb, 16u);
}

TEST(ClassesConfig, AReservedShareNeedsACongestionSource) {
  const std::string error = error_of(two_member_bond("classes") +
                                     "\n      default: b\n      list: [{name: a, "
                                     "min_share_permille: 300}, {name: b}]\n      rules: "
                                     "[{class: a, pcp: 3}]\n");
  EXPECT_NE(error.find("class \"a\" has a min_share_permille, which needs a congestion source "
                       "(scheduler.congestion.source)"),
            std::string::npos)
      << error;
}

// Issue 34 item 9: spray reorders within a flow; RoCE RC answers that with go-back-N.
TEST(ClassesConfig, SprayOnTrafficRoceCanReachIsRefusedUnlessReceiversPlaceOutOfOrder) {
  const std::string sprayed_default =
      "\n      default: bulk\n      list: [{name: roce}, {name: bulk, policy: spray}]\n      "
      "rules: [{class: roce, dscp: 26}]\n";
  const std::string error = error_of(two_member_bond("classes") + sprayed_default);
  EXPECT_NE(error.find("classes: class \"bulk\" uses policy spray and it is the default class and "
                       "no rule before takes every RoCEv2 frame"),
            std::string::npos)
      << error;
  // RoCE taken first by a rule of its own: the default class gets none.
  EXPECT_NO_THROW(parse_config(two_member_bond("classes") +
                                   "\n      default: bulk\n      list: [{name: roce}, {name: "
                                   "bulk, policy: spray}]\n      rules: [{class: roce, roce: "
                                   "true}]\n",
                               "c.yaml"));
  // The operator says every receiver places out of order.
  EXPECT_NO_THROW(
      parse_config(two_member_bond("scheduler") +
                       "{out_of_order_placement: true}\n    classes: " + sprayed_default,
                   "c.yaml"));
  // A bond without classes sprays RoCE with the rest.
  const std::string bond_wide = error_of(two_member_bond("scheduler") + "{policy: spray}\n");
  EXPECT_NE(bond_wide.find("scheduler.policy: the bond uses policy spray and the bond has no "
                           "traffic classes"),
            std::string::npos)
      << bond_wide;
}

// Issue 34 item 7: what braid drops by design, where it hurts.
TEST(ClassesConfig, WarnsOfDropsOnTheBondsPfcPriorityAndOfStarvingShares) {
  const Config capped = parse_config(two_member_bond("classes") +
                                         "\n      default: bulk\n      list: [{name: bulk, "
                                         "rate_cap: {mbps: 1000}}]\n",
                                     "c.yaml");
  ASSERT_EQ(capped.warnings.size(), 1u);
  EXPECT_NE(capped.warnings[0].find("c.yaml:11: bonds[0] \"uplink\".classes: class \"bulk\" has "
                                    "a rate cap and rides on PFC priority 3 "
                                    "(scheduler.congestion.priority): braid drops what is over "
                                    "its limit"),
            std::string::npos)
      << capped.warnings[0];
  // On a lossy priority of its own: nothing to say.
  EXPECT_TRUE(parse_config(two_member_bond("classes") +
                               "\n      default: bulk\n      list: [{name: bulk, priority: 0, "
                               "rate_cap: {mbps: 1000}}]\n",
                           "c.yaml")
                  .warnings.empty());
  const Config starving = parse_config(
      two_member_bond("scheduler") +
          "{congestion: {source: sim}}\n    classes:\n      default: b\n      list: [{name: a, "
          "min_share_permille: 950}, {name: b, priority: 0}]\n      rules: [{class: a, dscp: "
          "26}]\n",
      "c.yaml");
  ASSERT_EQ(starving.warnings.size(), 1u) << starving.warnings[0];
  EXPECT_NE(starving.warnings[0].find("the reserved shares add up to 950 permille: the classes "
                                      "without one keep 50 permille"),
            std::string::npos)
      << starving.warnings[0];
}

TEST(ClassesConfig, ARateCapsBurstFollowsItsRateAndASmallOneIsWarnedOf) {
  EXPECT_EQ(classify::default_burst_kb(2), 64u);
  EXPECT_EQ(classify::default_burst_kb(40'000), 4883u);  // 1 ms at 40 Gbit/s
  EXPECT_EQ(classify::default_burst_kb(800'000), classify::kMaxBurstKb);
  const Config small = parse_config(two_member_bond("classes") +
                                        "\n      default: bulk\n      list: [{name: bulk, "
                                        "priority: 0, rate_cap: {mbps: 40000, burst_kb: 64}}]\n",
                                    "c.yaml");
  ASSERT_EQ(small.warnings.size(), 1u);
  EXPECT_NE(small.warnings[0].find("rate_cap.burst_kb: 64 KiB is less than 288 KiB"),
            std::string::npos)
      << small.warnings[0];
}

TEST(ClassesConfig, AtMost64Rules) {
  std::string text = two_member_bond("classes") + kTwo;
  for (int i = 0; i < 65; ++i)
    text += "        - {class: a, dst_port: " + std::to_string(i) + "}\n";
  EXPECT_NE(error_of(text).find("classes.rules: has 65 rules: a bond has at most 64"),
            std::string::npos)
      << error_of(text);
}

}  // namespace
}  // namespace braid::config
