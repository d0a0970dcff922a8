// adaptive: weighted distribution whose weights follow congestion feedback (the AIMD law in
// aimd.hpp sets them). Unlike wrr, the weights are shares of measured load, not of bucket
// counts: idle buckets move until each member carries its weight's fraction of the packets, so
// an elephant's bucket counts for what it carries.
#include "sched/load_balancer.hpp"
#include "sched/policy.hpp"

namespace braid::sched {
namespace {

constexpr double kTolerance = 0.02;

class AdaptivePolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kAdaptive; }
  bool follows_feedback() const override { return true; }

  Plan plan(const PlanInput& in) override {
    double total = 0;
    for (const MemberState& member : in.members)
      total += member.distributing ? member.weight : 0;
    std::vector<double> share(in.members.size(), 0);
    const std::vector<double> backlog(in.members.size(), 0);
    if (total > 0) {
      for (std::size_t m = 0; m < in.members.size(); ++m) {
        if (in.members[m].distributing) share[m] = in.members[m].weight / total;
      }
    }
    return balance_load(in, share, backlog, kTolerance);
  }
};

}  // namespace

std::unique_ptr<Policy> make_adaptive_policy() {
  return std::make_unique<AdaptivePolicy>();
}

}  // namespace braid::sched
