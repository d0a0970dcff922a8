#include "engine/tx_pools.hpp"

#include <gtest/gtest.h>

namespace braid::engine {
namespace {

// Ports: 0 host, 1 and 2 bond members, 3 and 4 a cross-connected pair.
TEST(TxPools, AHostPortFedByMembersOnTwoSocketsSeesTwoPools) {
  const std::vector<std::vector<std::size_t>> sources = {{1, 2}, {0}, {0}, {4}, {3}};
  // Host on socket 0, both members on socket 1: every queue still sees one pool.
  EXPECT_EQ(single_pool_tx({0, 1, 1, 0, 0}, sources), (std::vector<bool>(5, true)));
  // The members split over the sockets: the host port sends mbufs of both pools.
  EXPECT_EQ(single_pool_tx({0, 0, 1, 0, 0}, sources),
            (std::vector<bool>{false, true, true, true, true}));
  // One socket: every queue sees one pool.
  EXPECT_EQ(single_pool_tx({0, 0, 0, 0, 0}, sources), (std::vector<bool>(5, true)));
}

TEST(TxPools, APortThatSendsNothingIsSinglePool) {
  EXPECT_EQ(single_pool_tx({0, 1}, {{}, {}}), (std::vector<bool>{true, true}));
}

}  // namespace
}  // namespace braid::engine
