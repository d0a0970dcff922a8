#include "control/peer_policy.hpp"

#include <gtest/gtest.h>

namespace braid::control {
namespace {

TEST(ControlPeerPolicy, BraidsOwnUserAndRootOnly) {
  constexpr uid_t kBraid = 998;
  EXPECT_TRUE(control_peer_allowed(kBraid, kBraid));
  EXPECT_TRUE(control_peer_allowed(0, kBraid));  // sudo braidctl
  EXPECT_FALSE(control_peer_allowed(65534, kBraid));
  EXPECT_FALSE(control_peer_allowed(1000, kBraid));
  EXPECT_TRUE(control_peer_allowed(0, 0));  // braid as root
  EXPECT_FALSE(control_peer_allowed(1000, 0));
}

}  // namespace
}  // namespace braid::control
