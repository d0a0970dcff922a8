// Which classes RoCEv2 can reach, for refusing spray on them (issue 34 item 9): a RoCE RC receiver
// takes reordering for loss and goes back N.
#include "classify/roce_reach.hpp"

#include <gtest/gtest.h>

namespace braid::classify {
namespace {

constexpr std::uint32_t kTcp = 6;
constexpr std::uint32_t kUdp = 17;

Rule rule(ClassId id) {
  Rule r;
  r.class_id = id;
  return r;
}

// Classes: 0 roce, 1 storage, 2 bulk (the default).
ClassifierSpec three_classes() {
  ClassifierSpec spec;
  spec.classes = {ClassSpec("roce"), ClassSpec("storage"), ClassSpec("bulk")};
  spec.default_class = 2;
  return spec;
}

TEST(RoceReach, TheDefaultClassGetsRoceUnlessARuleTakesAllOfItFirst) {
  ClassifierSpec spec = three_classes();
  Rule storage = rule(1);
  storage.protocol = {{kTcp, kTcp}};
  storage.dst_port = {{4420, 4420}};
  spec.rules = {storage};
  EXPECT_EQ(roce_reach(spec, 2),
            "it is the default class and no rule before takes every RoCEv2 frame");
  EXPECT_EQ(roce_reach(spec, 1), "");  // TCP only
  Rule roce = rule(0);
  roce.roce = true;
  spec.rules.push_back(roce);
  EXPECT_EQ(roce_reach(spec, 2), "");
  EXPECT_EQ(roce_reach(spec, 0), "rules[1] can send RoCEv2 to it");
}

TEST(RoceReach, ARuleOnDscpOrPcpMayCarryRoceAndDoesNotTakeAllOfIt) {
  ClassifierSpec spec = three_classes();
  Rule dscp = rule(1);
  dscp.dscp = {{26, 26}};
  Rule roce = rule(0);
  roce.roce = true;
  roce.pcp = {{3, 3}};  // RoCE on priority 3 only: RoCE on others goes on down the rules
  spec.rules = {dscp, roce};
  EXPECT_EQ(roce_reach(spec, 1), "rules[0] can send RoCEv2 to it");
  EXPECT_EQ(roce_reach(spec, 0), "rules[1] can send RoCEv2 to it");
  EXPECT_NE(roce_reach(spec, 2), "");
}

TEST(RoceReach, UdpPort4791TakesAllOfItAndOtherPortsOrProtocolsNone) {
  ClassifierSpec spec = three_classes();
  Rule other_udp = rule(1);
  other_udp.protocol = {{kUdp, kUdp}};
  other_udp.dst_port = {{5000, 5999}};
  Rule port = rule(0);
  port.dst_port = {{4791, 4791}};
  spec.rules = {other_udp, port};
  EXPECT_EQ(roce_reach(spec, 1), "");
  EXPECT_EQ(roce_reach(spec, 2), "");
  // A rule for a tunnel's inner headers leaves the outer RoCE to the rules after it.
  Rule inner = rule(1);
  inner.header = HeaderLevel::inner;
  inner.roce = true;
  spec.rules.insert(spec.rules.begin(), inner);
  EXPECT_EQ(roce_reach(spec, 1), "");
}

TEST(RoceReach, ABondWithoutClassesCarriesItInItsOneTable) {
  const ClassifierSpec none;
  EXPECT_NE(spray_on_roce_error(none, 0, "the bond"), "");
  ClassifierSpec spec = three_classes();
  const std::string error = spray_on_roce_error(spec, 2, "class \"bulk\"");
  EXPECT_TRUE(error.starts_with("class \"bulk\" uses policy spray and it is the default class"))
      << error;
  EXPECT_NE(error.find("scheduler.out_of_order_placement: true"), std::string::npos) << error;
  EXPECT_EQ(spray_on_roce_error(spec, 1, "class \"storage\""), "");
}

}  // namespace
}  // namespace braid::classify
