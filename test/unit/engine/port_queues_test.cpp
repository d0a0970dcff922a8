#include "engine/port_queues.hpp"

#include <gtest/gtest.h>

#include "engine/mempool_sizing.hpp"

namespace braid::engine {
namespace {

config::PortConfig port_with(std::uint16_t rx_queues, std::uint16_t tx_queues = 0) {
  config::PortConfig port;
  port.name = "p";
  port.rx_queues = rx_queues;
  port.tx_queues = tx_queues;
  return port;
}

config::BondConfig bond_steering(config::SlowSteering steering) {
  config::BondConfig bond;
  bond.name = "b";
  bond.slow_steering = steering;
  return bond;
}

TEST(PortQueues, APlainPortHasDataQueuesAndOneTxQueuePerWorker) {
  const PortQueues queues = plan_port_queues(port_with(4), nullptr, 2);
  EXPECT_EQ(queues.data_rx_queues, 4);
  EXPECT_FALSE(queues.slow_rx_queue);
  EXPECT_EQ(queues.rx_queues(), 4);
  EXPECT_EQ(queues.tx_queues, 2);
  EXPECT_FALSE(queues.control_tx_queue);
  EXPECT_EQ(queues.rx_descriptors(1024), 4u * 1024);
}

TEST(PortQueues, AConfiguredTxCountAboveTheWorkersWins) {
  EXPECT_EQ(plan_port_queues(port_with(1, 6), nullptr, 2).tx_queues, 6);
}

TEST(PortQueues, ASteeringMemberGetsASlowRxQueueAfterItsDataQueues) {
  for (const config::SlowSteering steering :
       {config::SlowSteering::kAuto, config::SlowSteering::kOn}) {
    const config::BondConfig bond = bond_steering(steering);
    const PortQueues queues = plan_port_queues(port_with(2), &bond, 3);
    EXPECT_TRUE(queues.slow_rx_queue);
    EXPECT_EQ(queues.data_rx_queues, 2);  // what workers poll: the slow queue is not theirs
    EXPECT_EQ(queues.rx_queues(), 3);
    EXPECT_EQ(queues.slow_rx_queue_index(), 2);
    // Three workers' TX queues, then the control thread's.
    EXPECT_EQ(queues.tx_queues, 4);
    EXPECT_TRUE(queues.control_tx_queue);
    EXPECT_EQ(queues.control_tx_queue_index(), 3);
    // The slow queue's descriptors are provisioned in the mempool, at its own (short) size.
    EXPECT_EQ(queues.rx_descriptors(512), 2u * 512 + kSlowRxDescriptors);
  }
}

TEST(PortQueues, SteeringOffKeepsTheControlTxQueueButNoSlowRxQueue) {
  const config::BondConfig bond = bond_steering(config::SlowSteering::kOff);
  const PortQueues queues = plan_port_queues(port_with(1), &bond, 1);
  EXPECT_FALSE(queues.slow_rx_queue);
  EXPECT_EQ(queues.rx_queues(), 1);
  EXPECT_EQ(queues.rx_descriptors(1024), 1024u);
  EXPECT_EQ(queues.tx_queues, 2);
  EXPECT_EQ(queues.control_tx_queue_index(), 1);
}

TEST(PortQueues, TheSlowQueueRaisesTheMempoolByItsDescriptors) {
  const config::BondConfig on = bond_steering(config::SlowSteering::kOn);
  const config::BondConfig off = bond_steering(config::SlowSteering::kOff);
  MempoolDemand steered, ring;
  steered.rx_descriptors = plan_port_queues(port_with(1), &on, 1).rx_descriptors(1024);
  ring.rx_descriptors = plan_port_queues(port_with(1), &off, 1).rx_descriptors(1024);
  steered.lcores = ring.lcores = 2;
  steered.egress_ports = ring.egress_ports = 2;
  EXPECT_GE(mbufs_needed(steered), mbufs_needed(ring) + kSlowRxDescriptors);
}

}  // namespace
}  // namespace braid::engine
