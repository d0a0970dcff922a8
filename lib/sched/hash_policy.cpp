// hash: the static bond. Buckets stay where the bond put them; only member changes (the bond's
// own rebuild) move them. What every link aggregator does; the baseline the others beat.
#include "sched/policy.hpp"

namespace braid::sched {
namespace {

class HashPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kHash; }
  Plan plan(const PlanInput& in) override {
    return {std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0, {}};
  }
};

}  // namespace

std::unique_ptr<Policy> make_hash_policy() {
  return std::make_unique<HashPolicy>();
}

}  // namespace braid::sched
