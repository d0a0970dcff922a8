// Each machine of 802.1AX-2014 6.4 driven directly on a Port, transition by transition.
#include "lacp/machines.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "lacp/selection.hpp"

namespace braid::lacp {
namespace {

constexpr MacAddress kOurSystem{0x02, 0, 0, 0, 0, 0x01};
constexpr MacAddress kTheirSystem{0x02, 0, 0, 0, 0, 0x02};

class MachineTest : public ::testing::Test {
 protected:
  MachineTest() : log_(64), port_(make_config(), make_system()) {
    receive_begin(port_, at(0));
    mux_begin(port_, at(0));
    churn_begin(port_, at(0));
  }

  static SystemConfig make_system() {
    SystemConfig system;
    system.system_mac = kOurSystem;
    return system;
  }
  static PortConfig make_config() {
    PortConfig config;
    config.port_number = 1;
    config.port_mac = {0x02, 0, 0, 0, 1, 1};
    config.key = 10;
    return config;
  }
  MachineContext at(std::uint64_t now_ns) { return MachineContext{now_ns, log_}; }
  void link_up(std::uint64_t now_ns) {
    port_.port_enabled = true;
    port_.lacp_enabled = true;
    while (receive_step(port_, at(now_ns))) {
    }
  }
  // A LACPDU from a partner that already knows us (echoes our actor info) and is in sync.
  Lacpdu partner_pdu(std::uint8_t their_state) const {
    Lacpdu pdu;
    pdu.actor = PortInfo{0x8000, kTheirSystem, 20, 0x80, 5, their_state};
    pdu.partner = port_.actor;
    return pdu;
  }

  EventLog log_;
  Port port_;
};

using namespace state_bit;

TEST_F(MachineTest, ReceiveStartsDisabledThenExpiresAndDefaults) {
  EXPECT_EQ(port_.rx_state, RxState::kPortDisabled);
  EXPECT_TRUE(has_bit(port_.actor.state, kDefaulted));
  link_up(0);
  EXPECT_EQ(port_.rx_state, RxState::kExpired);
  EXPECT_TRUE(has_bit(port_.actor.state, kExpired));
  EXPECT_TRUE(has_bit(port_.partner.state, kTimeout));
  EXPECT_FALSE(receive_step(port_, at(kShortTimeoutTime - 1)));
  EXPECT_TRUE(receive_step(port_, at(kShortTimeoutTime)));
  EXPECT_EQ(port_.rx_state, RxState::kDefaulted);
  EXPECT_FALSE(has_bit(port_.actor.state, kExpired));
  EXPECT_EQ(port_.partner, port_.partner_admin);
}

TEST_F(MachineTest, ReceiveRecordsPartnerAndComputesSync) {
  link_up(0);
  ASSERT_TRUE(
      receive_lacpdu(port_, partner_pdu(kActivity | kAggregation | kSynchronization), at(100)));
  EXPECT_EQ(port_.rx_state, RxState::kCurrent);
  EXPECT_EQ(port_.partner.system, kTheirSystem);
  EXPECT_EQ(port_.partner.port_number, 5);
  EXPECT_TRUE(has_bit(port_.partner.state, kSynchronization));
  EXPECT_FALSE(has_bit(port_.actor.state, kDefaulted));
  EXPECT_EQ(port_.selected, Selected::kUnselected);  // new partner: select again
  // Short timeout (ours): CURRENT -> EXPIRED after 3 s, then DEFAULTED 3 s later.
  EXPECT_FALSE(receive_step(port_, at(100 + kShortTimeoutTime - 1)));
  EXPECT_TRUE(receive_step(port_, at(100 + kShortTimeoutTime)));
  EXPECT_EQ(port_.rx_state, RxState::kExpired);
  EXPECT_FALSE(has_bit(port_.partner.state, kSynchronization));
}

TEST_F(MachineTest, LongTimeoutIsNinetySeconds) {
  port_.config.timeout = LacpTimeout::kLong;
  port_.refresh_actor_admin();
  link_up(0);
  receive_lacpdu(port_, partner_pdu(kActivity | kAggregation), at(0));
  EXPECT_FALSE(receive_step(port_, at(kLongTimeoutTime - 1)));
  EXPECT_TRUE(receive_step(port_, at(kLongTimeoutTime)));
  EXPECT_EQ(port_.rx_state, RxState::kExpired);
}

TEST_F(MachineTest, SyncNeedsOurInfoEchoedExactly) {
  link_up(0);
  Lacpdu pdu = partner_pdu(kActivity | kAggregation | kSynchronization);
  pdu.partner.port_priority ^= 1;  // partner has a stale view of us
  port_.ntt = false;
  receive_lacpdu(port_, pdu, at(0));
  EXPECT_FALSE(has_bit(port_.partner.state, kSynchronization));
  EXPECT_TRUE(port_.ntt);  // update_NTT: tell it again
}

TEST_F(MachineTest, IndividualPartnerInSyncCounts) {
  link_up(0);
  Lacpdu pdu = partner_pdu(kActivity | kSynchronization);  // Aggregation 0
  pdu.partner = PortInfo{};                                // knows nothing of us
  receive_lacpdu(port_, pdu, at(0));
  EXPECT_TRUE(has_bit(port_.partner.state, kSynchronization));
}

TEST_F(MachineTest, PassiveBothEndsIsNotMaintained) {
  port_.config.activity = LacpActivity::kPassive;
  port_.refresh_actor_admin();
  link_up(0);
  receive_lacpdu(port_, partner_pdu(kAggregation | kSynchronization), at(0));
  EXPECT_FALSE(has_bit(port_.partner.state, kSynchronization));
}

TEST_F(MachineTest, HalfDuplexIsLacpDisabled) {
  port_.port_enabled = true;
  port_.lacp_enabled = false;
  while (receive_step(port_, at(0))) {
  }
  EXPECT_EQ(port_.rx_state, RxState::kLacpDisabled);
  EXPECT_FALSE(has_bit(port_.partner.state, kAggregation));
  EXPECT_FALSE(receive_lacpdu(port_, partner_pdu(kActivity), at(0)));
}

TEST_F(MachineTest, PortMovedReinitialises) {
  port_.port_moved = true;
  EXPECT_TRUE(receive_step(port_, at(0)));
  EXPECT_EQ(port_.rx_state, RxState::kInitialize);
  EXPECT_FALSE(port_.port_moved);
  receive_step(port_, at(0));
  EXPECT_EQ(port_.rx_state, RxState::kPortDisabled);
}

TEST_F(MachineTest, PeriodicFollowsPartnerTimeout) {
  EXPECT_FALSE(periodic_step(port_, at(0)));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kNoPeriodic);
  link_up(0);  // EXPIRED: partner assumed Short Timeout
  periodic_step(port_, at(0));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kFastPeriodic);
  port_.ntt = false;
  periodic_step(port_, at(kFastPeriodicTime));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kPeriodicTx);
  EXPECT_TRUE(port_.ntt);
  receive_lacpdu(port_, partner_pdu(kActivity | kAggregation), at(kFastPeriodicTime));
  periodic_step(port_, at(kFastPeriodicTime));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kSlowPeriodic);
  EXPECT_EQ(port_.periodic_timer.deadline_ns, kFastPeriodicTime + kSlowPeriodicTime);
  // Partner asks for fast: leave SLOW_PERIODIC at once.
  receive_lacpdu(port_, partner_pdu(kActivity | kTimeout | kAggregation), at(2 * kNsPerSecond));
  periodic_step(port_, at(2 * kNsPerSecond));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kPeriodicTx);
  periodic_step(port_, at(2 * kNsPerSecond));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kFastPeriodic);
}

TEST_F(MachineTest, PeriodicSilentWhenBothPassive) {
  port_.config.activity = LacpActivity::kPassive;
  port_.refresh_actor_admin();
  link_up(0);
  periodic_step(port_, at(0));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kNoPeriodic);
  receive_lacpdu(port_, partner_pdu(kActivity | kAggregation), at(0));  // active partner
  periodic_step(port_, at(0));
  EXPECT_EQ(port_.periodic_state, PeriodicState::kFastPeriodic);
}

TEST_F(MachineTest, MuxCoupled) {
  link_up(0);
  EXPECT_EQ(port_.mux_state, MuxState::kDetached);
  EXPECT_FALSE(mux_step(port_, false, at(0)));
  port_.selected = Selected::kSelected;
  EXPECT_TRUE(mux_step(port_, false, at(0)));
  EXPECT_EQ(port_.mux_state, MuxState::kWaiting);
  EXPECT_FALSE(port_.ready_n(kAggregateWaitTime - 1));
  EXPECT_TRUE(port_.ready_n(kAggregateWaitTime));
  EXPECT_TRUE(mux_step(port_, true, at(kAggregateWaitTime)));
  EXPECT_EQ(port_.mux_state, MuxState::kAttached);
  EXPECT_TRUE(has_bit(port_.actor.state, kSynchronization));
  EXPECT_FALSE(port_.collecting);
  // Partner advertises collecting+distributing but no sync: stay ATTACHED.
  set_bit(port_.partner.state, kCollecting | kDistributing, true);
  EXPECT_FALSE(mux_step(port_, true, at(kAggregateWaitTime)));
  set_bit(port_.partner.state, kSynchronization, true);
  EXPECT_TRUE(mux_step(port_, true, at(kAggregateWaitTime)));
  EXPECT_EQ(port_.mux_state, MuxState::kCollectingDistributing);
  EXPECT_TRUE(port_.collecting && port_.distributing);
  EXPECT_TRUE(has_bit(port_.actor.state, kCollecting | kDistributing));
  set_bit(port_.partner.state, kSynchronization, false);
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kAttached);
  EXPECT_FALSE(port_.collecting || port_.distributing);
  port_.selected = Selected::kStandby;
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kDetached);
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kWaiting);  // STANDBY waits
  EXPECT_FALSE(mux_step(port_, true, at(10 * kAggregateWaitTime)));
  port_.selected = Selected::kUnselected;
  mux_step(port_, true, at(10 * kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kDetached);
}

TEST_F(MachineTest, MuxIndependent) {
  port_.config.mux_mode = MuxMode::kIndependent;
  link_up(0);
  port_.selected = Selected::kSelected;
  mux_step(port_, true, at(0));
  mux_step(port_, true, at(kAggregateWaitTime));
  ASSERT_EQ(port_.mux_state, MuxState::kAttached);
  port_.partner.state = kActivity | kAggregation | kSynchronization;
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kCollecting);
  EXPECT_TRUE(port_.collecting);
  EXPECT_FALSE(port_.distributing);
  EXPECT_FALSE(mux_step(port_, true, at(kAggregateWaitTime)));  // partner not collecting yet
  set_bit(port_.partner.state, kCollecting, true);
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kDistributing);
  EXPECT_TRUE(port_.distributing);
  set_bit(port_.partner.state, kCollecting, false);
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kCollecting);
  EXPECT_FALSE(port_.distributing);
}

TEST_F(MachineTest, ChurnDetectedAfterSixtySecondsAndCleared) {
  link_up(0);
  churn_step(port_, at(0));
  EXPECT_EQ(port_.actor_churn_state, ChurnState::kChurnMonitor);
  churn_step(port_, at(kChurnDetectionTime - 1));
  EXPECT_FALSE(port_.actor_churn);
  churn_step(port_, at(kChurnDetectionTime));
  EXPECT_TRUE(port_.actor_churn);
  EXPECT_TRUE(port_.partner_churn);
  EXPECT_EQ(port_.partner_churn_state, ChurnState::kChurn);
  set_bit(port_.actor.state, kSynchronization, true);
  set_bit(port_.partner.state, kSynchronization, true);
  churn_step(port_, at(kChurnDetectionTime + 1));
  EXPECT_FALSE(port_.actor_churn);
  EXPECT_FALSE(port_.partner_churn);
  EXPECT_EQ(port_.actor_churn_state, ChurnState::kNoChurn);
  set_bit(port_.actor.state, kSynchronization, false);
  churn_step(port_, at(kChurnDetectionTime + 2));
  EXPECT_EQ(port_.actor_churn_state, ChurnState::kChurnMonitor);
}

TEST_F(MachineTest, TransmitAtMostThreePerFastPeriodic) {
  link_up(0);
  periodic_step(port_, at(0));
  int sent = 0;
  for (std::uint64_t t = 0; t < kFastPeriodicTime; t += kFastPeriodicTime / 10) {
    port_.ntt = true;
    if (transmit_step(port_, 0, at(t))) {
      transmit_done(port_, true, at(t));
      ++sent;
    }
  }
  EXPECT_EQ(sent, 3);
  EXPECT_TRUE(port_.ntt);
  EXPECT_EQ(transmit_deadline(port_), kFastPeriodicTime);
  EXPECT_TRUE(transmit_step(port_, 0, at(kFastPeriodicTime)).has_value());
  transmit_done(port_, true, at(kFastPeriodicTime));
  EXPECT_EQ(port_.counters.lacpdu_tx, 4u);
  EXPECT_EQ(port_.counters.lacpdu_tx_deferred, 1u);
}

TEST_F(MachineTest, TransmitCarriesActorAndPartner) {
  link_up(0);
  periodic_step(port_, at(0));
  port_.ntt = true;
  const auto pdu = transmit_step(port_, 7, at(0));
  ASSERT_TRUE(pdu.has_value());
  EXPECT_EQ(pdu->actor, port_.actor);
  EXPECT_EQ(pdu->partner, port_.partner);
  EXPECT_EQ(pdu->collector_max_delay, 7);
  EXPECT_TRUE(port_.ntt);  // until the caller says it went out
  transmit_done(port_, true, at(0));
  EXPECT_FALSE(port_.ntt);
  // Link down: nothing goes out.
  port_.port_enabled = false;
  port_.ntt = true;
  EXPECT_FALSE(transmit_step(port_, 0, at(kNsPerSecond)).has_value());
}

TEST_F(MachineTest, RefusedLacpduKeepsNttAndIsRetriedSoon) {
  link_up(0);
  periodic_step(port_, at(0));
  port_.ntt = true;
  ASSERT_TRUE(transmit_step(port_, 0, at(0)).has_value());
  transmit_done(port_, false, at(0));  // the TX queue was full
  EXPECT_TRUE(port_.ntt);
  EXPECT_EQ(port_.counters.lacpdu_tx_failed, 1u);
  EXPECT_EQ(port_.counters.lacpdu_tx, 0u);
  EXPECT_EQ(transmit_deadline(port_), kTxRetryTime);
  EXPECT_FALSE(transmit_step(port_, 0, at(kTxRetryTime - 1)).has_value());
  ASSERT_TRUE(transmit_step(port_, 0, at(kTxRetryTime)).has_value());
  transmit_done(port_, true, at(kTxRetryTime));
  EXPECT_FALSE(port_.ntt);
  EXPECT_EQ(port_.counters.lacpdu_tx, 1u);
  EXPECT_EQ(transmit_deadline(port_), kNever);
}

TEST_F(MachineTest, CoupledMuxDistributesOnlyWhileThePartnerCollects) {
  link_up(0);
  port_.selected = Selected::kSelected;
  mux_step(port_, true, at(0));
  mux_step(port_, true, at(kAggregateWaitTime));
  ASSERT_EQ(port_.mux_state, MuxState::kAttached);
  port_.partner.state = kActivity | kAggregation | kSynchronization;  // in sync, not collecting
  mux_step(port_, true, at(kAggregateWaitTime));
  EXPECT_EQ(port_.mux_state, MuxState::kCollectingDistributing);
  EXPECT_TRUE(port_.collecting);
  EXPECT_FALSE(port_.distributing);
  EXPECT_FALSE(has_bit(port_.actor.state, kDistributing));
  set_bit(port_.partner.state, kCollecting, true);
  EXPECT_TRUE(mux_step(port_, true, at(kAggregateWaitTime)));
  EXPECT_TRUE(port_.distributing);
  EXPECT_TRUE(has_bit(port_.actor.state, kDistributing));
  EXPECT_FALSE(mux_step(port_, true, at(kAggregateWaitTime)));
  set_bit(port_.partner.state, kCollecting, false);  // the partner stops collecting
  EXPECT_TRUE(mux_step(port_, true, at(kAggregateWaitTime)));
  EXPECT_FALSE(port_.distributing);
  EXPECT_EQ(port_.mux_state, MuxState::kCollectingDistributing);
}

// Ports as the Selection Logic (6.4.14) sees them once their Receive machines have a partner:
// link up, detached, CURRENT. Port n talks to port n of `partners[n]`.
std::vector<Port> heard_ports(const SystemConfig& system, const std::vector<MacAddress>& partners,
                              const std::vector<std::uint32_t>& speeds_mbps) {
  std::vector<Port> ports;
  for (std::size_t index = 0; index < partners.size(); ++index) {
    PortConfig config;
    config.port_number = static_cast<std::uint16_t>(index + 1);
    config.key = 10;
    Port& port = ports.emplace_back(config, system);
    port.port_enabled = true;
    port.lacp_enabled = true;
    port.full_duplex = true;
    port.speed_mbps = speeds_mbps[index];
    port.rx_state = RxState::kCurrent;
    port.partner =
        PortInfo{0x8000, partners[index],    20,
                 0x80,   config.port_number, kActivity | kAggregation | kSynchronization};
  }
  return ports;
}

SystemConfig selection_system() {
  SystemConfig system;
  system.system_mac = kOurSystem;
  return system;
}

TEST(SelectionTest, WithdrawnPortIsStandbyAndKeepsItsAggregator) {
  EventLog log(64);
  const MachineContext context{0, log};
  const SystemConfig system = selection_system();
  std::vector<Port> ports = heard_ports(system, {kTheirSystem, kTheirSystem}, {25'000, 25'000});
  SelectionLogic selection;
  selection.step(ports, system, context);
  ASSERT_EQ(ports[0].selected, Selected::kSelected);
  ASSERT_EQ(ports[1].selected, Selected::kSelected);
  const int aggregator = ports[0].aggregator;
  ASSERT_EQ(ports[1].aggregator, aggregator);
  ports[1].withdrawal.begin(0);
  EXPECT_TRUE(selection.step(ports, system, context));
  EXPECT_EQ(ports[1].selected, Selected::kStandby);
  EXPECT_EQ(ports[1].aggregator, aggregator);
  EXPECT_EQ(ports[0].selected, Selected::kSelected);
  EXPECT_EQ(selection.active_aggregator(), aggregator);
  EXPECT_FALSE(selection.step(ports, system, context));  // settled
  // Every member withdrawn: still the active aggregator, nothing to reselect.
  ports[0].withdrawal.begin(0);
  selection.step(ports, system, context);
  EXPECT_EQ(ports[0].selected, Selected::kStandby);
  EXPECT_EQ(ports[0].aggregator, aggregator);
  EXPECT_EQ(selection.active_aggregator(), aggregator);
  ports[0].withdrawal.end();
  ports[1].withdrawal.end();
  EXPECT_TRUE(selection.step(ports, system, context));
  EXPECT_EQ(ports[0].selected, Selected::kSelected);
  EXPECT_EQ(ports[1].selected, Selected::kSelected);
  for (const Event& event : log.events()) {
    if (event.machine == Machine::kSelection && event.port_number == 2) {
      EXPECT_STRNE(event.to, "UNSELECTED");
    }
  }
}

TEST(SelectionTest, WithdrawnPortsStillCountForTheActiveAggregator) {
  // Two 25G ports to one partner, a 40G port to another: by bandwidth the pair (50G) is active,
  // and withdrawing one of it is no reason to move the bond to the 40G port.
  EventLog log(64);
  const MachineContext context{0, log};
  SystemConfig system = selection_system();
  system.aggregator_select = AggregatorSelect::kBandwidth;
  const MacAddress other{0x02, 0, 0, 0, 0, 0x03};
  std::vector<Port> ports =
      heard_ports(system, {kTheirSystem, kTheirSystem, other}, {25'000, 25'000, 40'000});
  SelectionLogic selection;
  selection.step(ports, system, context);
  const int pair = ports[0].aggregator;
  ASSERT_EQ(selection.active_aggregator(), pair);
  ASSERT_EQ(ports[2].selected, Selected::kStandby);
  ports[1].withdrawal.begin(0);
  selection.step(ports, system, context);
  EXPECT_EQ(selection.active_aggregator(), pair);
  EXPECT_EQ(ports[0].selected, Selected::kSelected);
  EXPECT_EQ(ports[1].selected, Selected::kStandby);
  EXPECT_EQ(ports[2].selected, Selected::kStandby);
}

TEST(SelectionTest, WithdrawnPortGivesItsActiveSlotToAStandbyOne) {
  // max_active_ports 1 (6.4.14.1 g): port 1 ranks first; withdrawn, port 2 takes its place.
  EventLog log(64);
  const MachineContext context{0, log};
  SystemConfig system = selection_system();
  system.max_active_ports = 1;
  std::vector<Port> ports = heard_ports(system, {kTheirSystem, kTheirSystem}, {25'000, 25'000});
  SelectionLogic selection;
  selection.step(ports, system, context);
  ASSERT_EQ(ports[0].selected, Selected::kSelected);
  ASSERT_EQ(ports[1].selected, Selected::kStandby);
  ports[0].withdrawal.begin(0);
  selection.step(ports, system, context);
  EXPECT_EQ(ports[0].selected, Selected::kStandby);
  EXPECT_EQ(ports[1].selected, Selected::kSelected);
  ports[0].withdrawal.end();
  selection.step(ports, system, context);
  EXPECT_EQ(ports[0].selected, Selected::kSelected);
  EXPECT_EQ(ports[1].selected, Selected::kStandby);
}

TEST(WithdrawalRecord, ReleasedByTheFirstLacpduNotDistributing) {
  Withdrawal withdrawal;
  constexpr std::uint8_t kInService =
      kActivity | kAggregation | kSynchronization | kCollecting | kDistributing;
  EXPECT_FALSE(withdrawal.heard(kActivity, 1));  // not withdrawn: nothing to acknowledge
  EXPECT_STREQ(withdrawal.state_name(), "IN_SERVICE");
  withdrawal.begin(10);
  EXPECT_STREQ(withdrawal.state_name(), "WITHDRAWN");
  EXPECT_FALSE(withdrawal.heard(kInService, 11));
  EXPECT_TRUE(withdrawal.heard(kInService & ~kDistributing, 12));
  EXPECT_FALSE(withdrawal.heard(kActivity, 13));  // the first one counts
  EXPECT_EQ(withdrawal.partner_released_ns, 12u);
  EXPECT_STREQ(withdrawal.state_name(), "PARTNER_RELEASED");
  withdrawal.begin(20);
  EXPECT_FALSE(withdrawal.partner_released_ns.has_value());
  EXPECT_EQ(withdrawal.since_ns, 20u);
  EXPECT_TRUE(withdrawal.heard(kInService & ~kSynchronization, 21));
  withdrawal.end();
  EXPECT_FALSE(withdrawal.active);
  EXPECT_FALSE(withdrawal.partner_released_ns.has_value());
}

TEST_F(MachineTest, TransitionsAreLogged) {
  link_up(5);
  const auto events = log_.events();
  ASSERT_FALSE(events.empty());
  EXPECT_STREQ(events.back().to, "EXPIRED");
  EXPECT_EQ(events.back().time_ns, 5u);
  EXPECT_EQ(events.back().machine, Machine::kReceive);
}

}  // namespace
}  // namespace braid::lacp
