// The netlink socket that follows kernel-backed members' links is opened only when there is one
// (issue 33 item 11): otherwise every link change on the host would wake the protocol loop.
#include "port/kernel_links.hpp"

#include <gtest/gtest.h>
#include <net/if.h>

#include "bond_rig.hpp"

namespace braid::test {
namespace {

TEST(KernelLinks, TheNetlinkSocketOpensWithTheFirstWatchedInterface) {
  drivers::KernelLinks links;
  EXPECT_EQ(links.fd(), -1);
  const auto loopback = static_cast<int>(::if_nametoindex("lo"));
  ASSERT_NE(loopback, 0);
  links.watch(loopback);
  EXPECT_GE(links.fd(), 0) << links.error();
  EXPECT_EQ(links.up(loopback), true);
}

TEST(KernelLinks, ABondWithoutKernelBackedMembersOpensNoNetlinkSocket) {
  BondRig rig(2, ", mode: static");
  EXPECT_EQ(rig.engine().kernel_links().fd(), -1);
}

}  // namespace
}  // namespace braid::test
