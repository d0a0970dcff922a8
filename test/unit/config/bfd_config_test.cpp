// bonds[].bfd: defaults, both modes, per-member addresses, and errors that name the key.
#include <gtest/gtest.h>

#include "config/config_loader.hpp"
#include "config_text.hpp"

namespace braid::config {
namespace {

std::string bond_with_bfd(const std::string& bfd) {
  return two_member_bond("bfd") + bfd + "\n";
}

std::string bfd_error(const std::string& bfd) {
  return error_of(bond_with_bfd(bfd));
}

TEST(BfdConfig, OffByDefaultAndMicroWithBondWideAddresses) {
  EXPECT_EQ(parse_config(bond_with_bfd("{}"), "bfd.yaml").bonds[0].bfd.mode, BfdMode::kOff);
  const Config config = parse_config(
      bond_with_bfd("{mode: micro, local_ip: 10.0.0.1, remote_ip: 10.0.0.2, desired_min_tx_ms: "
                    "10, members: {m1: {local_ip: 10.0.1.1}}}"),
      "bfd.yaml");
  const BfdConfig& bfd = config.bonds[0].bfd;
  EXPECT_EQ(bfd.mode, BfdMode::kMicro);
  EXPECT_EQ(bfd.desired_min_tx_ms, 10u);
  EXPECT_EQ(bfd.required_min_rx_ms, 50u);
  EXPECT_EQ(bfd.detect_mult, 3u);
  ASSERT_EQ(bfd.members.size(), 2u);
  EXPECT_EQ(bfd.members[0].member, "m0");
  EXPECT_EQ(ip_text(bfd.members[0].local_ip), "10.0.0.1");
  EXPECT_EQ(ip_text(bfd.members[1].local_ip), "10.0.1.1");
  EXPECT_EQ(ip_text(bfd.members[1].remote_ip), "10.0.0.2");
}

TEST(BfdConfig, SingleHopNeedsEveryMembersPartnerMac) {
  const Config config = parse_config(
      bond_with_bfd("{mode: single-hop, members: {m0: {local_ip: 'fd00::1', remote_ip: 'fd00::2', "
                    "remote_mac: '02:00:00:00:00:02'}, m1: {local_ip: 'fd00:1::1', remote_ip: "
                    "'fd00:1::2', remote_mac: '02:00:00:00:00:03'}}}"),
      "bfd.yaml");
  const BfdConfig& bfd = config.bonds[0].bfd;
  ASSERT_EQ(bfd.members.size(), 2u);
  EXPECT_TRUE(bfd.members[1].local_ip.ipv6);
  EXPECT_EQ(ip_text(bfd.members[1].remote_ip), "fd00:1::2");
  EXPECT_EQ(bfd.members[1].remote_mac[5], 3u);
  EXPECT_NE(bfd_error("{mode: single-hop, local_ip: 10.0.0.1, remote_ip: 10.0.0.2}")
                .find("bfd.members.m0: mode single-hop needs the partner's MAC"),
            std::string::npos);
}

TEST(BfdConfig, ErrorsNameTheKey) {
  const auto has = [](const std::string& bfd, const std::string& text) {
    const std::string error = bfd_error(bfd);
    EXPECT_NE(error.find(text), std::string::npos) << bfd << " -> " << error;
  };
  has("{mode: fast}", "bfd.mode: unknown mode \"fast\" (known: off, micro, single-hop)");
  has("{mode: micro, remote_ip: 10.0.0.2}", "bfd.members.m0: member m0 has no local_ip");
  has("{mode: micro, local_ip: 10.0.0.1, remote_ip: 'fd00::2'}", "differ in family");
  has("{mode: micro, local_ip: 10.0.0.1, remote_ip: 10.0.0.300}",
      "bfd.remote_ip: expected an IPv4");
  has("{mode: micro, local_ip: 10.0.0.1, remote_ip: 10.0.0.2, desired_min_tx_ms: 5}",
      "desired_min_tx_ms");
  has("{mode: micro, local_ip: 10.0.0.1, remote_ip: 10.0.0.2, detect_mult: 0}", "detect_mult");
  has("{mode: micro, members: {p9: {local_ip: 10.0.0.1}}}",
      "\"p9\" is not a member of this bond (members: m0, m1)");
  has("{mode: micro, local_ip: 10.0.0.1, remote_ip: 10.0.0.2, members: {m0: {remote_mac: "
      "'02:00:00:00:00:02'}}}",
      "remote_mac is for mode single-hop");
  has("{mode: single-hop, members: {m0: {remote_mac: '01:00:5e:00:00:01'}}}",
      "expected the partner's unicast MAC");
  has("{mode: micro, local_ip: 10.0.0.1, remote_ip: 10.0.0.2, interval: 5}",
      "unknown key \"interval\"");
}

}  // namespace
}  // namespace braid::config
