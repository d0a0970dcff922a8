#include "sched/load_balancer.hpp"

#include <algorithm>
#include <numeric>

namespace braid::sched {
namespace {

// Per-member load against its target share, updated as buckets are planned away.
class Excess {
 public:
  Excess(const PlanInput& in, std::span<const MemberIndex> table, std::span<const double> share,
         std::span<const double> backlog, double tolerance)
      : in_(in), share_(share), tolerance_(tolerance), excess_(in.members.size(), 0) {
    const std::size_t members = in.members.size();
    std::vector<double> load(backlog.begin(), backlog.end());
    for (std::size_t b = 0; b < table.size(); ++b) {
      if (table[b] < members) load[table[b]] += in.bucket_load[b];
    }
    for (std::size_t m = 0; m < members; ++m) {
      if (share[m] > 0) total_ += load[m];
    }
    // excess > 0: above target; the mover picks the most negative as destination.
    for (std::size_t m = 0; m < members; ++m)
      excess_[m] = share[m] > 0 ? load[m] - total_ * share[m] : 0;
  }

  bool empty() const { return total_ <= 0; }
  bool over(MemberIndex member) const {
    return member < excess_.size() && share_[member] > 0 &&
           excess_[member] > tolerance_ * total_ * share_[member];
  }

  // Where bucket `b` (on `from`) would go: the member furthest below its target, and only if
  // the pair's worse deviation shrinks (the bucket is smaller than their gap), so two members
  // never trade the same bucket back and forth. kNoMember: nowhere.
  MemberIndex destination(std::uint32_t b, MemberIndex from) const {
    if (!over(from)) return bond::kNoMember;
    MemberIndex to = bond::kNoMember;
    for (std::size_t m = 0; m < excess_.size(); ++m) {
      if (share_[m] > 0 && m != from && (to == bond::kNoMember || excess_[m] < excess_[to]))
        to = static_cast<MemberIndex>(m);
    }
    if (to == bond::kNoMember || in_.bucket_load[b] >= excess_[from] - excess_[to])
      return bond::kNoMember;
    return to;
  }

  void move(std::uint32_t b, MemberIndex from, MemberIndex to) {
    excess_[from] -= in_.bucket_load[b];
    excess_[to] += in_.bucket_load[b];
  }

 private:
  const PlanInput& in_;
  std::span<const double> share_;
  double tolerance_;
  std::vector<double> excess_;
  double total_ = 0;
};

// Buckets marked in `mask` that carried traffic and sit on an overloaded member, heaviest first.
std::vector<std::uint32_t> candidates(const PlanInput& in, std::span<const bool> mask,
                                      const Excess& excess) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t b = 0; b < in.buckets.size() && b < mask.size(); ++b) {
    if (mask[b] && in.bucket_load[b] > 0 && excess.over(in.buckets[b])) out.push_back(b);
  }
  std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
    return in.bucket_load[a] > in.bucket_load[b];
  });
  return out;
}

}  // namespace

Plan balance_load(const PlanInput& in, std::span<const double> share,
                  std::span<const double> backlog, double tolerance) {
  Plan plan{std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0, {}};
  Excess excess(in, plan.buckets, share, backlog, tolerance);
  if (excess.empty()) return plan;
  for (std::uint32_t b : candidates(in, in.movable, excess)) {
    if (plan.moved >= in.max_moves) break;
    const MemberIndex from = plan.buckets[b];
    const MemberIndex to = excess.destination(b, from);
    if (to == bond::kNoMember) continue;
    plan.buckets[b] = to;
    excess.move(b, from, to);
    ++plan.moved;
  }
  // What idle buckets could not fix: busy ones, held first (held_moves.hpp).
  for (std::uint32_t b : candidates(in, in.holdable, excess)) {
    if (plan.holds.size() >= in.max_holds) break;
    const MemberIndex from = plan.buckets[b];
    const MemberIndex to = excess.destination(b, from);
    if (to == bond::kNoMember) continue;
    plan.holds.push_back({b, to});
    excess.move(b, from, to);
  }
  return plan;
}

}  // namespace braid::sched
