#include "sched/load_balancer.hpp"

#include <algorithm>
#include <numeric>

namespace braid::sched {

Plan balance_load(const PlanInput& in, std::span<const double> share,
                  std::span<const double> backlog, double tolerance) {
  Plan plan{std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0};
  const std::size_t members = in.members.size();
  std::vector<double> load(backlog.begin(), backlog.end());
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    if (plan.buckets[b] < members) load[plan.buckets[b]] += in.bucket_load[b];
  }
  double total = 0;
  for (std::size_t m = 0; m < members; ++m) {
    if (share[m] > 0) total += load[m];
  }
  if (total <= 0) return plan;
  // excess > 0: above target; the mover picks the most negative as destination.
  std::vector<double> excess(members, 0);
  for (std::size_t m = 0; m < members; ++m)
    excess[m] = share[m] > 0 ? load[m] - total * share[m] : 0;
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t b = 0; b < plan.buckets.size(); ++b) {
    const MemberIndex from = plan.buckets[b];
    if (in.movable[b] && in.bucket_load[b] > 0 && from < members && share[from] > 0 &&
        excess[from] > tolerance * total * share[from]) {
      candidates.push_back(b);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [&](std::uint32_t a, std::uint32_t b) {
    return in.bucket_load[a] > in.bucket_load[b];
  });
  for (std::uint32_t b : candidates) {
    if (plan.moved >= in.max_moves) break;
    const MemberIndex from = plan.buckets[b];
    if (excess[from] <= tolerance * total * share[from]) continue;
    MemberIndex to = bond::kNoMember;
    for (std::size_t m = 0; m < members; ++m) {
      if (share[m] > 0 && m != from && (to == bond::kNoMember || excess[m] < excess[to]))
        to = static_cast<MemberIndex>(m);
    }
    if (to == bond::kNoMember) break;
    const double bucket = in.bucket_load[b];
    // The pair's worse deviation shrinks only if the bucket is smaller than their gap.
    if (bucket >= excess[from] - excess[to]) continue;
    plan.buckets[b] = to;
    excess[from] -= bucket;
    excess[to] += bucket;
    ++plan.moved;
  }
  return plan;
}

}  // namespace braid::sched
