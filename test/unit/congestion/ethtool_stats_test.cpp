// The SIOCETHTOOL reader against this machine's kernel (a veth pair made for the test, the
// loopback device, a netdev that does not exist), and the PCI -> netdev lookup against a fixture
// sysfs tree.
#include "congestion/ethtool_stats.hpp"

#include <gtest/gtest.h>
#include <net/if.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "veth_pair.hpp"

namespace braid::congestion {
namespace {

using test::Command;
using test::run;
using test::VethPair;

const std::string kFixtures = BRAID_CONGESTION_FIXTURES;

const std::uint64_t* find(const EthtoolStats& stats, const std::string& name) {
  return find_xstat(stats.stats, name);
}

TEST(EthtoolStats, ReadsAVethPairThroughTheIoctl) {
  const std::string pid = std::to_string(::getpid());
  VethPair veth("brd" + pid + "a", "brd" + pid + "b");  // 15 characters at most
  if (const auto why = veth.create()) GTEST_SKIP() << *why;

  const EthtoolStats stats = read_ethtool_stats(veth.name());
  ASSERT_TRUE(stats.error.empty()) << stats.error;
  ASSERT_FALSE(stats.stats.empty());
  // veth's first statistic is its peer's interface index (drivers/net/veth.c).
  const std::uint64_t* peer = find(stats, "peer_ifindex");
  ASSERT_NE(peer, nullptr);
  EXPECT_EQ(*peer, ::if_nametoindex(veth.peer().c_str()));
  EXPECT_EQ(stats.stats.front().first, "peer_ifindex");
  for (const auto& [name, value] : stats.stats) {
    EXPECT_FALSE(name.empty());
    EXPECT_LT(name.size(), 32u);  // ETH_GSTRING_LEN, the padding cut off
  }
  // The same names and count as `ethtool -S`, where the tool is installed.
  const Command ethtool = run("ethtool -S " + veth.name());
  if (ethtool.status == 0) {
    for (const auto& [name, value] : stats.stats)
      EXPECT_NE(ethtool.output.find(" " + name + ": "), std::string::npos) << name;
  }

  // The other end has its own statistics, and points back.
  const EthtoolStats other = read_ethtool_stats(veth.peer());
  ASSERT_TRUE(other.error.empty()) << other.error;
  ASSERT_NE(find(other, "peer_ifindex"), nullptr);
  EXPECT_EQ(*find(other, "peer_ifindex"), ::if_nametoindex(veth.name().c_str()));
}

TEST(EthtoolStats, ANetdevThatDoesNotExistIsAClearError) {
  const std::string name = "brd" + std::to_string(::getpid()) + "x";
  const EthtoolStats stats = read_ethtool_stats(name);
  EXPECT_TRUE(stats.stats.empty());
  EXPECT_EQ(stats.error, "ethtool stats of " + name +
                             ": ETHTOOL_GSSET_INFO: no netdev of that name in this network "
                             "namespace");
}

TEST(EthtoolStats, ANetdevWithoutStatisticsIsAClearError) {
  // The loopback device has no ethtool statistics (no get_sset_count).
  const EthtoolStats stats = read_ethtool_stats("lo");
  EXPECT_TRUE(stats.stats.empty());
  EXPECT_EQ(stats.error, "ethtool stats of lo: its driver reports no ethtool statistics");
}

TEST(EthtoolStats, NamesTheKernelWouldRejectAreNotSent) {
  EXPECT_EQ(read_ethtool_stats("").error,
            "ethtool stats of \"\": not a netdev name (1..15 characters)");
  EXPECT_FALSE(read_ethtool_stats("a-name-of-16-chr").error.empty());
  EXPECT_TRUE(read_ethtool_stats("a-name-of-16-chr").stats.empty());
}

TEST(PciNetdevs, ListsTheNetdevsOfAPciFunctionSorted) {
  const std::string sys = kFixtures + "/sys";
  EXPECT_EQ(pci_netdevs(sys, "0000:3b:00.0"), (std::vector<std::string>{"ens1f0np0"}));
  // switchdev: the uplink and a representor under the same PF
  EXPECT_EQ(pci_netdevs(sys, "0000:3b:00.1"), (std::vector<std::string>{"ens1f1_0", "ens1f1np1"}));
  EXPECT_TRUE(pci_netdevs(sys, "0000:99:00.0").empty());  // e.g. bound to vfio-pci
  EXPECT_TRUE(pci_netdevs(sys, "").empty());
  EXPECT_TRUE(pci_netdevs(kFixtures + "/no-such-sys", "0000:3b:00.0").empty());
}

}  // namespace
}  // namespace braid::congestion
