// wrr: configured member weights are bucket shares (bond::bucket_quotas). A weight change is
// applied flowlet by flowlet: only idle buckets of members above their quota move, to the member
// furthest below its quota, so no flow is reordered on the way to the new shares.
#include <algorithm>

#include "sched/policy.hpp"

namespace braid::sched {
namespace {

class WrrPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kWrr; }

  Plan plan(const PlanInput& in) override {
    Plan plan{std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0, {}};
    std::vector<std::uint32_t> weights(in.members.size(), 0);
    for (std::size_t m = 0; m < in.members.size(); ++m)
      weights[m] = in.members[m].distributing ? in.members[m].weight : 0;
    const auto quotas =
        bond::bucket_quotas(weights, static_cast<std::uint32_t>(plan.buckets.size()));
    std::vector<std::int64_t> surplus(weights.size(), 0);  // owned - quota
    const auto counts = bond::bucket_counts(plan.buckets, weights.size());
    for (std::size_t m = 0; m < weights.size(); ++m)
      surplus[m] = std::int64_t{counts[m]} - quotas[m];
    for (std::size_t b = 0; b < plan.buckets.size() && plan.moved < in.max_moves; ++b) {
      const MemberIndex from = plan.buckets[b];
      if (!in.movable[b] || from >= weights.size() || surplus[from] <= 0) continue;
      const auto to = static_cast<MemberIndex>(std::min_element(surplus.begin(), surplus.end()) -
                                               surplus.begin());
      if (surplus[to] >= 0) break;  // every member at quota
      plan.buckets[b] = to;
      --surplus[from];
      ++surplus[to];
      ++plan.moved;
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<Policy> make_wrr_policy() {
  return std::make_unique<WrrPolicy>();
}

}  // namespace braid::sched
