// The member service model (lib/bond/member_service.hpp): every reason a member may not carry
// traffic, what braid does on transmit, what it tells the partner, and when it stops collecting.
#include "bond/member_service.hpp"

#include <gtest/gtest.h>

namespace braid::bond {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kS = 1'000'000'000;

ServiceInputs in_service() {
  ServiceInputs in;
  in.carrier = true;
  in.lacp = true;
  in.lacp_collecting = in.lacp_distributing = true;
  in.partner_in_sync = true;
  return in;
}

ServiceInputs degraded(health::Signal signal) {
  ServiceInputs in = in_service();
  in.health = health::State::kDegraded;
  in.health_reason = health::Reason::kErrorRate;
  in.health_signal = signal;
  in.health_weight_permille = 100;
  return in;
}

ServiceInputs health_down(health::Reason reason, health::State state = health::State::kDown) {
  ServiceInputs in = in_service();
  in.health = state;
  in.health_reason = reason;
  in.health_weight_permille = 0;
  return in;
}

std::vector<std::string> lines(const std::vector<ServiceEvent>& events) {
  std::vector<std::string> out;
  for (const ServiceEvent& event : events)
    out.push_back(to_string(event));
  return out;
}

TEST(MemberService, HealthyMemberCarriesEverythingAndStaysInSync) {
  const ServiceVerdict v = decide(in_service(), {}, false);
  EXPECT_EQ(v.tx_weight_permille, 1000u);
  EXPECT_EQ(v.tx.reason, ServiceReason::kInService);
  EXPECT_FALSE(v.withdrawn);
  EXPECT_TRUE(v.collecting);
}

TEST(MemberService, HealthVerdictsThatHoldAMemberOutAlwaysWithdraw) {
  for (const auto& [reason, state] :
       {std::pair{health::Reason::kBfdDown, health::State::kDown},
        std::pair{health::Reason::kUpDelayPending, health::State::kDown},
        std::pair{health::Reason::kPfcStorm, health::State::kDown},
        std::pair{health::Reason::kFlapSuppressed, health::State::kSuppressed}}) {
    WithdrawPolicy never;
    never.degraded = WithdrawPolicy::Degraded::kNever;
    const ServiceVerdict v = decide(health_down(reason, state), never, true);
    EXPECT_TRUE(v.withdrawn) << health::to_string(reason);
    EXPECT_EQ(v.tx_weight_permille, 0u);
    EXPECT_EQ(v.tx, v.partner);
    EXPECT_NE(v.partner.reason, ServiceReason::kInService);
  }
  EXPECT_EQ(to_string(withdraw_cause(health_down(health::Reason::kBfdDown), {})), "bfd_down");
}

TEST(MemberService, DegradedOnTheReceiveSideWithdrawsByDefault) {
  // CRC errors measure what the partner sends us: only the partner can move that direction.
  const ServiceVerdict crc = decide(degraded(health::Signal::kCrc), {}, true);
  EXPECT_TRUE(crc.withdrawn);
  EXPECT_EQ(to_string(crc.partner), "error_rate:crc");
  // Withdrawn, the member carries nothing of ours either (the partner stops collecting on it).
  EXPECT_EQ(crc.tx_weight_permille, 0u);
  // RoCE retransmissions are both ways: braid keeps the member at the degraded weight.
  const ServiceVerdict roce = decide(degraded(health::Signal::kRoceRetransmit), {}, false);
  EXPECT_FALSE(roce.withdrawn);
  EXPECT_EQ(roce.tx_weight_permille, 100u);
  EXPECT_EQ(to_string(roce.tx), "error_rate:roce_retransmit");
}

TEST(MemberService, DegradedPolicyAlwaysAndNever) {
  WithdrawPolicy always;
  always.degraded = WithdrawPolicy::Degraded::kAlways;
  EXPECT_TRUE(decide(degraded(health::Signal::kRoceRetransmit), always, true).withdrawn);
  WithdrawPolicy never;
  never.degraded = WithdrawPolicy::Degraded::kNever;
  const ServiceVerdict v = decide(degraded(health::Signal::kCrc), never, false);
  EXPECT_FALSE(v.withdrawn);
  EXPECT_EQ(v.tx_weight_permille, 100u);
}

TEST(MemberService, CablingFindingsActOnlyWhenConfigured) {
  ServiceInputs in = in_service();
  in.cabling_finding = true;
  EXPECT_FALSE(decide(in, {}, false).withdrawn);
  EXPECT_EQ(decide(in, {}, false).tx_weight_permille, 1000u);
  WithdrawPolicy cabling;
  cabling.cabling = true;
  const ServiceVerdict v = decide(in, cabling, true);
  EXPECT_TRUE(v.withdrawn);
  EXPECT_EQ(v.partner.reason, ServiceReason::kCabling);
  // A static bond cannot tell its partner, but still stops sending on the member.
  in.lacp = false;
  const ServiceVerdict stat = decide(in, cabling, false);
  EXPECT_FALSE(stat.withdrawn);
  EXPECT_EQ(stat.tx_weight_permille, 0u);
  EXPECT_EQ(stat.tx.reason, ServiceReason::kCabling);
}

TEST(MemberService, LacpMuxIsATransmitReasonNeverAWithdrawal) {
  // Our own withdrawal takes LACP out of distributing: that must not keep the member withdrawn.
  ServiceInputs in = in_service();
  in.lacp_distributing = in.lacp_collecting = false;
  const ServiceVerdict v = decide(in, {}, false);
  EXPECT_FALSE(v.withdrawn);
  EXPECT_EQ(v.tx.reason, ServiceReason::kLacpNotDistributing);
  EXPECT_EQ(v.tx_weight_permille, 0u);
  EXPECT_FALSE(v.collecting);
}

TEST(MemberService, StaticBondNeverWithdrawsAndCollectsWhileAdminUp) {
  ServiceInputs in = health_down(health::Reason::kBfdDown);
  in.lacp = false;
  const ServiceVerdict v = decide(in, {}, false);
  EXPECT_FALSE(v.withdrawn);
  EXPECT_EQ(v.tx.reason, ServiceReason::kBfdDown);
  EXPECT_TRUE(v.collecting);
  in.admin_up = false;
  EXPECT_FALSE(decide(in, {}, false).collecting);
  // Stopping: nothing to tell a static bond's partner, and nothing to change before the workers
  // stop.
  ServiceInputs stopping = in_service();
  stopping.lacp = false;
  stopping.stopping = true;
  EXPECT_EQ(decide(stopping, {}, false).tx_weight_permille, 1000u);
  EXPECT_TRUE(decide(stopping, {}, false).collecting);
}

TEST(MemberService, WithdrawalCollectsUntilThePartnerAcknowledges) {
  MemberService service({});
  service.update(in_service(), 1 * kS);
  ServiceInputs in = health_down(health::Reason::kBfdDown);
  in.lacp_collecting = in.lacp_distributing = false;  // our mux left COLLECTING_DISTRIBUTING
  auto events = service.update(in, 2 * kS);
  EXPECT_EQ(lines(events), (std::vector<std::string>{"transmit 1000 -> 0 permille (bfd_down)",
                                                     "partner withdrawn (bfd_down)"}));
  EXPECT_EQ(service.release(), Release::kPending);
  EXPECT_TRUE(service.verdict().collecting);
  EXPECT_EQ(service.next_deadline_ns(), 2 * kS + 1000 * kMs);
  // A release from before this withdrawal is not an acknowledgement of it.
  in.partner_released_ns = 1 * kS;
  service.update(in, 2 * kS + 5 * kMs);
  EXPECT_EQ(service.release(), Release::kPending);
  in.partner_released_ns = 2 * kS + 12 * kMs;
  in.partner_in_sync = false;  // what its acknowledging LACPDU says
  // Frames it queued before that LACPDU may still come: collecting goes on for the grace.
  events = service.update(in, 2 * kS + 13 * kMs);
  EXPECT_EQ(service.release(), Release::kPending);
  EXPECT_TRUE(service.verdict().collecting);
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(service.next_deadline_ns(), 2 * kS + 12 * kMs + MemberService::kAcknowledgeGraceNs);
  events = service.update(in, 2 * kS + 12 * kMs + MemberService::kAcknowledgeGraceNs);
  EXPECT_EQ(service.release(), Release::kAcknowledged);
  EXPECT_EQ(service.last_release_wait_ns(), 12 * kMs);
  EXPECT_FALSE(service.verdict().collecting);
  EXPECT_FALSE(service.next_deadline_ns().has_value());
  EXPECT_EQ(lines(events),
            (std::vector<std::string>{"partner stopped sending 12.0 ms after the withdrawal "
                                      "(acknowledged)"}));
  EXPECT_EQ(service.partner_since_ns(), 2 * kS);
}

TEST(MemberService, APartnerThatNeverAnswersCostsThePatienceOnly) {
  WithdrawPolicy policy;
  policy.patience_ns = 200 * kMs;
  MemberService service(policy);
  service.update(in_service(), 0);
  ServiceInputs in = in_service();
  in.admin_up = false;  // set member down: a drain
  service.update(in, 1 * kS);
  EXPECT_EQ(service.verdict().tx.reason, ServiceReason::kDraining);
  EXPECT_EQ(service.verdict().partner.reason, ServiceReason::kDraining);
  EXPECT_TRUE(service.verdict().collecting);
  EXPECT_FALSE(service.settled());
  service.update(in, 1 * kS + 199 * kMs);
  EXPECT_FALSE(service.settled());
  const auto events = service.update(in, 1 * kS + 200 * kMs);
  EXPECT_TRUE(service.settled());
  EXPECT_EQ(service.release(), Release::kPatience);
  EXPECT_EQ(service.verdict().tx.reason, ServiceReason::kAdminDown);
  EXPECT_EQ(service.verdict().partner.reason, ServiceReason::kAdminDown);
  EXPECT_FALSE(service.verdict().collecting);
  EXPECT_EQ(lines(events).front(),
            "partner did not acknowledge the withdrawal within 200.0 ms; collecting stops "
            "(patience)");
}

TEST(MemberService, LinkDownEndsTheWait) {
  MemberService service({});
  service.update(in_service(), 0);
  ServiceInputs in = in_service();
  in.stopping = true;
  service.update(in, 1 * kS);
  EXPECT_EQ(service.verdict().partner.reason, ServiceReason::kStopping);
  EXPECT_TRUE(service.verdict().collecting);
  in.carrier = false;
  service.update(in, 1 * kS + kMs);
  EXPECT_EQ(service.release(), Release::kLinkDown);
  EXPECT_FALSE(service.verdict().collecting);
}

TEST(MemberService, RecoveryReturnsToThePartnerAndAReasonChangeIsOneWithdrawal) {
  MemberService service({});
  service.update(in_service(), 0);
  service.update(health_down(health::Reason::kBfdDown), 1 * kS);
  ServiceInputs in = health_down(health::Reason::kFlapSuppressed, health::State::kSuppressed);
  in.partner_released_ns = 1 * kS + 3 * kMs;
  auto events = service.update(in, 2 * kS);
  // The withdrawal goes on (the acknowledgement still counts), its reason changes.
  EXPECT_EQ(service.release(), Release::kAcknowledged);
  EXPECT_EQ(lines(events).back(), "partner withdrawn (flap_suppressed, was bfd_down)");
  EXPECT_EQ(service.partner_since_ns(), 2 * kS);
  // Back: in sync again at once; transmit follows once LACP distributes again.
  ServiceInputs back = in_service();
  back.lacp_distributing = back.lacp_collecting = false;
  events = service.update(back, 3 * kS);
  EXPECT_EQ(service.release(), Release::kNone);
  EXPECT_FALSE(service.verdict().withdrawn);
  EXPECT_EQ(service.verdict().tx.reason, ServiceReason::kLacpNotDistributing);
  EXPECT_EQ(lines(events).back(), "partner back in sync (was flap_suppressed)");
  events = service.update(in_service(), 3 * kS + 2 * kMs);
  EXPECT_EQ(lines(events),
            (std::vector<std::string>{"transmit 0 -> 1000 permille (was lacp_not_distributing)"}));
}

TEST(MemberService, AdminDownDuringAHealthWithdrawalIsSettledAtOnce) {
  MemberService service({});
  service.update(in_service(), 0);
  ServiceInputs in = health_down(health::Reason::kBfdDown);
  in.partner_released_ns = 5 * kMs;
  service.update(in, 1 * kMs);
  service.update(in, 10 * kMs);
  EXPECT_TRUE(service.settled());
  in.admin_up = false;
  service.update(in, 20 * kMs);
  EXPECT_TRUE(service.settled());
  EXPECT_EQ(service.verdict().partner.reason, ServiceReason::kAdminDown);
}

TEST(MemberService, APartnerThatWasNotSendingIsNotWaitedFor) {
  // A partner braid never heard from (or one out of sync) has nothing on its way to us.
  MemberService service({});
  ServiceInputs in = in_service();
  in.partner_in_sync = false;
  in.lacp_distributing = in.lacp_collecting = false;
  service.update(in, 0);
  in.stopping = true;
  service.update(in, 1 * kS);
  EXPECT_TRUE(service.settled());
  EXPECT_EQ(service.release(), Release::kNotSending);
  EXPECT_FALSE(service.verdict().collecting);
}

TEST(MemberService, NamesFollowTheEnums) {
  EXPECT_STREQ(to_string(ServiceReason::kLacpNotDistributing), "lacp_not_distributing");
  EXPECT_STREQ(to_string(ServiceReason::kInService), "in_service");
  EXPECT_STREQ(to_string(Release::kLinkDown), "link_down");
  EXPECT_STREQ(to_string(Release::kNotSending), "not_sending");
  EXPECT_STREQ(to_string(WithdrawPolicy::Degraded::kNever), "never");
}

}  // namespace
}  // namespace braid::bond
