// lqf (least queue first): a flowlet that may move goes to the member with the shortest
// transmit queue. Queue depth (packets waiting in TX descriptors or an emulated link) counts as
// load already on the member, so a member whose queue builds up (slower, paused) receives no new
// flowlets until it drains; with equal queues the recent per-bucket load decides, which spreads
// elephants and mice evenly. Members get equal shares (the scheduler gives every member the
// same weight under lqf) except where their health cuts the weight (a degraded member's share
// is its health factor's fraction of an equal one).
#include "sched/load_balancer.hpp"
#include "sched/policy.hpp"

namespace braid::sched {
namespace {

constexpr double kTolerance = 0.02;  // 2%: below the noise of one period's packet counts

class LqfPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kLqf; }

  Plan plan(const PlanInput& in) override {
    double total = 0;
    for (const MemberState& member : in.members)
      total += member.distributing ? member.weight : 0;
    std::vector<double> share(in.members.size(), 0);
    std::vector<double> backlog(in.members.size(), 0);
    for (std::size_t m = 0; m < in.members.size(); ++m) {
      if (!in.members[m].distributing) continue;
      share[m] = total > 0 ? in.members[m].weight / total : 0;
      backlog[m] = static_cast<double>(in.members[m].queue_depth.value_or(0));
    }
    return balance_load(in, share, backlog, kTolerance);
  }
};

}  // namespace

std::unique_ptr<Policy> make_lqf_policy() {
  return std::make_unique<LqfPolicy>();
}

}  // namespace braid::sched
