// bonds[].lldp: on by default with the 802.1AB timers, `lldp: off` alone, every key read, and
// bad values refused naming the key.
#include <gtest/gtest.h>

#include <string>

#include "config/config_loader.hpp"
#include "config_text.hpp"

namespace braid::config {
namespace {

std::string bond_with(const std::string& lldp) {
  return R"(
ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: net_ring1}
  - {name: m1, device: net_ring2}
cross_connect: [[host, uplink]]
bonds:
  - name: uplink
    members: [m0, m1]
)" + lldp;
}

TEST(LldpConfig, OnByDefaultWithTheStandardsTimers) {
  const Config config = parse_config(bond_with(""), "lldp.yaml");
  const LldpSettings& lldp = config.bonds[0].lldp;
  EXPECT_TRUE(lldp.enabled);
  EXPECT_EQ(lldp.tx_interval_s, 30u);
  EXPECT_EQ(lldp.tx_hold, 4u);
  EXPECT_EQ(lldp.system_name, "");  // the host name, at run time
  EXPECT_EQ(lldp.silent_grace_s, 60u);
}

TEST(LldpConfig, OffAloneOrEveryKey) {
  EXPECT_FALSE(parse_config(bond_with("    lldp: off\n"), "lldp.yaml").bonds[0].lldp.enabled);
  EXPECT_TRUE(parse_config(bond_with("    lldp: on\n"), "lldp.yaml").bonds[0].lldp.enabled);
  const Config config =
      parse_config(bond_with("    lldp: {enabled: true, tx_interval_s: 5, tx_hold: 3, "
                             "system_name: gw-7, system_description: rack 4, silent_grace_s: 9}\n"),
                   "lldp.yaml");
  const LldpSettings& lldp = config.bonds[0].lldp;
  EXPECT_TRUE(lldp.enabled);
  EXPECT_EQ(lldp.tx_interval_s, 5u);
  EXPECT_EQ(lldp.tx_hold, 3u);
  EXPECT_EQ(lldp.system_name, "gw-7");
  EXPECT_EQ(lldp.system_description, "rack 4");
  EXPECT_EQ(lldp.silent_grace_s, 9u);
}

TEST(LldpConfig, BadValuesNameTheKey) {
  EXPECT_NE(error_of(bond_with("    lldp: {tx_interval_s: 0}\n"))
                .find("bonds[0] \"uplink\".lldp.tx_interval_s: must be 1..3600, got 0"),
            std::string::npos)
      << error_of(bond_with("    lldp: {tx_interval_s: 0}\n"));
  EXPECT_NE(error_of(bond_with("    lldp: {tx_hold: 101}\n")).find("lldp.tx_hold: must be 1..100"),
            std::string::npos);
  EXPECT_NE(error_of(bond_with("    lldp: {interval: 5}\n")).find("unknown key \"interval\""),
            std::string::npos);
  EXPECT_NE(error_of(bond_with("    lldp: maybe\n"))
                .find("expected on, off or a map of settings, got \"maybe\""),
            std::string::npos);
  EXPECT_NE(error_of(bond_with("    lldp: {system_name: " + std::string(256, 'x') + "}\n"))
                .find("lldp.system_name: at most 255 octets (802.1AB 8.5.6), got 256"),
            std::string::npos);
}

}  // namespace
}  // namespace braid::config
