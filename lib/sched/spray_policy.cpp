// spray: per-packet round robin weighted by member, for classes whose receivers tolerate
// reordering (RDMA with out-of-order placement, UDP bulk with its own sequencing). The workers
// walk the class's table one slot per packet (bond_datapath.hpp) instead of indexing it by the
// flow hash, so the table's shares (the configured weights, interleaved: bucket_quotas) are the
// members' packet shares; nothing needs to move between periods, and failover is the bond's own
// rebuild.
#include "sched/policy.hpp"

namespace braid::sched {
namespace {

class SprayPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kSpray; }
  Plan plan(const PlanInput& in) override {
    return {std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0, {}};
  }
};

}  // namespace

std::unique_ptr<Policy> make_spray_policy() {
  return std::make_unique<SprayPolicy>();
}

}  // namespace braid::sched
