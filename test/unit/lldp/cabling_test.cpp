// The bond's cabling check: what LLDP heard on each member, with LACP's partner, in findings.
#include "lldp/cabling.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace braid::lldp {
namespace {

constexpr std::uint64_t kS = kNsPerSecond;
constexpr LacpSystemId kMlagPartner{0x8000, {0x02, 0x00, 0x00, 0x00, 0x00, 0xaa}};

HeardNeighbour heard_from(std::uint8_t chassis, const std::string& port,
                          const std::string& name = "") {
  return {.chassis_id = chassis_mac({0x0c, 0, 0, 0, 0, chassis}),
          .port_id = port_interface_name(port),
          .system_name = name,
          .aggregation = std::nullopt};
}

MemberCabling member(const std::string& name, std::vector<HeardNeighbour> neighbours,
                     std::optional<LacpSystemId> partner = std::nullopt) {
  return {.member = name,
          .neighbours = std::move(neighbours),
          .lacp_partner = partner,
          .listening_ns = 120 * kS};
}

std::vector<std::string> kinds(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& finding : findings)
    out.push_back(to_string(finding.kind));
  return out;
}

TEST(LldpCabling, TwoMembersToOneSwitchAreFine) {
  const auto findings = check_cabling({member("p0", {heard_from(1, "swp1", "tor1")}),
                                       member("p1", {heard_from(1, "swp2", "tor1")})});
  EXPECT_TRUE(findings.empty()) << findings.front().text;
}

TEST(LldpCabling, TwoMembersToAnMlagPairWithOneLacpPartnerAreFine) {
  const auto findings =
      check_cabling({member("p0", {heard_from(1, "swp1", "leaf1")}, kMlagPartner),
                     member("p1", {heard_from(2, "swp1", "leaf2")}, kMlagPartner)});
  EXPECT_TRUE(findings.empty()) << findings.front().text;
}

TEST(LldpCabling, TwoMembersToUnrelatedSwitchesWarn) {
  const LacpSystemId other{0x8000, {0x02, 0x00, 0x00, 0x00, 0x00, 0xbb}};
  for (const auto& partners :
       std::vector<std::pair<std::optional<LacpSystemId>, std::optional<LacpSystemId>>>{
           {std::nullopt, std::nullopt}, {kMlagPartner, other}, {kMlagPartner, std::nullopt}}) {
    const auto findings =
        check_cabling({member("p0", {heard_from(1, "swp1", "tor1")}, partners.first),
                       member("p1", {heard_from(2, "Ethernet4")}, partners.second)});
    ASSERT_EQ(kinds(findings), std::vector<std::string>{"different_chassis"});
    EXPECT_EQ(findings[0].members, (std::vector<std::string>{"p0", "p1"}));
    EXPECT_EQ(findings[0].text,
              "members lead to 2 chassis that are not one LACP partner (mis-cabled?): "
              "p0 -> tor1 (chassis mac 0c:00:00:00:00:01) port ifname swp1, "
              "p1 -> chassis mac 0c:00:00:00:00:02 port ifname Ethernet4");
  }
}

TEST(LldpCabling, AMemberHearingNothingWarnsAfterTheGracePeriod) {
  MemberCabling silent = member("p1", {});
  silent.listening_ns = 59 * kS;
  std::vector<MemberCabling> members = {member("p0", {heard_from(1, "swp1")}), silent};
  EXPECT_TRUE(check_cabling(members).empty());
  members[1].listening_ns = 60 * kS;
  const auto findings = check_cabling(members);
  ASSERT_EQ(kinds(findings), std::vector<std::string>{"silent"});
  EXPECT_EQ(findings[0].members, std::vector<std::string>{"p1"});
  EXPECT_EQ(findings[0].text, "member p1 hears no LLDP neighbour after 60 s");
  EXPECT_EQ(kinds(check_cabling(members, 90 * kS)), std::vector<std::string>{});
}

TEST(LldpCabling, TwoNeighboursOnOneMemberWarn) {
  const auto findings =
      check_cabling({member("p0", {heard_from(1, "swp1", "tor1"), heard_from(1, "swp7", "tor1")}),
                     member("p1", {heard_from(1, "swp2", "tor1")})});
  ASSERT_EQ(kinds(findings), std::vector<std::string>{"several_neighbours"});
  EXPECT_EQ(findings[0].text,
            "member p0 hears 2 LLDP neighbours (a hub or unmanaged switch in between?): "
            "tor1 (chassis mac 0c:00:00:00:00:01) port ifname swp1, "
            "tor1 (chassis mac 0c:00:00:00:00:01) port ifname swp7");
}

TEST(LldpCabling, ANeighbourPortOutsideAnAggregationWarns) {
  HeardNeighbour loose = heard_from(1, "swp2", "tor1");
  loose.aggregation = LinkAggregation{.capable = true, .enabled = false, .aggregated_port_id = 0};
  HeardNeighbour bundled = heard_from(1, "swp1", "tor1");
  bundled.aggregation = LinkAggregation{.capable = true, .enabled = true, .aggregated_port_id = 9};
  const auto findings = check_cabling({member("p0", {bundled}), member("p1", {loose})});
  ASSERT_EQ(kinds(findings), std::vector<std::string>{"not_aggregated"});
  EXPECT_EQ(findings[0].members, std::vector<std::string>{"p1"});
}

TEST(LldpCabling, FromAnAgentsTable) {
  Agent agent({}, Lldpdu{.chassis_id = chassis_local("me"), .port_id = port_local("p0")});
  agent.start(0);
  Lldpdu tor;
  tor.chassis_id = chassis_mac({0x0c, 0, 0, 0, 0, 1});
  tor.port_id = port_interface_name("swp1");
  tor.ttl_s = 120;
  tor.system_name = "tor1";
  tor.org_specific.push_back(encode_link_aggregation({true, true, 3}));
  agent.on_frame(build_frame({0x0c, 0, 0, 0, 0, 2}, tor), 1 * kS);
  ASSERT_EQ(agent.neighbours().size(), 1u);
  const HeardNeighbour neighbour = heard(agent.neighbours()[0]);
  EXPECT_EQ(neighbour.chassis_id, tor.chassis_id);
  EXPECT_EQ(neighbour.port_id, tor.port_id);
  EXPECT_EQ(neighbour.system_name, "tor1");
  EXPECT_EQ(neighbour.aggregation, (LinkAggregation{true, true, 3}));
}

}  // namespace
}  // namespace braid::lldp
