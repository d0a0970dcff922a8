#include "sched/load_balancer.hpp"

#include <algorithm>
#include <numeric>

namespace braid::sched {
namespace {

// How far a bucket alone must exceed its member's target before it moves to a member where it
// fits although that member ends further from balance (see Excess::destination). Moving an
// elephant is not free: what its hold collected meanwhile (its rate times the old member's
// drain time) lands on the new member at once and can overflow that queue. A bucket only a few
// percent over its member's share loses less by staying.
constexpr double kReliefMargin = 0.10;

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
  // Whether a bucket of `load` on its own stays within `member`'s target (and tolerance).
  bool fits_alone(double load, std::size_t member) const {
    return load <= (1 + tolerance_) * total_ * share_[member];
  }
  // Whether a bucket of `load` on its own is clearly more than `member` should carry.
  bool overloads_alone(double load, std::size_t member) const {
    return load > (1 + kReliefMargin) * total_ * share_[member];
  }
  bool over(MemberIndex member) const {
    return member < excess_.size() && share_[member] > 0 &&
           excess_[member] > tolerance_ * total_ * share_[member];
  }

  // Where bucket `b` (on `from`) would go: the member furthest below its target among those the
  // bucket alone does not overload, and only if the pair's worse deviation shrinks (the bucket
  // is smaller than their gap), so two members never trade the same bucket back and forth. One
  // exception: a bucket that alone clearly overloads `from` (an elephant on a congested member,
  // by more than kReliefMargin) goes even when the destination ends further above its target
  // than `from` was: there it fits and the destination's smaller buckets can leave, where it sits
  // it can only overflow. kNoMember: nowhere.
  MemberIndex destination(std::uint32_t b, MemberIndex from) const {
    if (!over(from)) return bond::kNoMember;
    const double load = in_.bucket_load[b];
    MemberIndex to = bond::kNoMember;
    for (std::size_t m = 0; m < excess_.size(); ++m) {
      if (share_[m] <= 0 || m == from || !fits_alone(load, m)) continue;
      if (to == bond::kNoMember || excess_[m] < excess_[to]) to = static_cast<MemberIndex>(m);
    }
    if (to == bond::kNoMember) return bond::kNoMember;
    if (load < excess_[from] - excess_[to] || overloads_alone(load, from)) return to;
    return bond::kNoMember;
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

// Buckets marked in `mask` that carried traffic, sit on an overloaded member in `table` and have
// not moved in this plan yet, heaviest first.
std::vector<std::uint32_t> candidates(const PlanInput& in, std::span<const MemberIndex> table,
                                      std::span<const bool> mask, const Excess& excess) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t b = 0; b < in.buckets.size() && b < mask.size(); ++b) {
    if (mask[b] && table[b] == in.buckets[b] && in.bucket_load[b] > 0 && excess.over(table[b]))
      out.push_back(b);
  }
  std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
    return in.bucket_load[a] > in.bucket_load[b];
  });
  return out;
}

void move_idle(const PlanInput& in, Excess& excess, Plan& plan) {
  for (std::uint32_t b : candidates(in, plan.buckets, in.movable, excess)) {
    if (plan.moved >= in.max_moves) break;
    const MemberIndex from = plan.buckets[b];
    const MemberIndex to = excess.destination(b, from);
    if (to == bond::kNoMember) continue;
    plan.buckets[b] = to;
    excess.move(b, from, to);
    ++plan.moved;
  }
}

}  // namespace

Plan balance_load(const PlanInput& in, std::span<const double> share,
                  std::span<const double> backlog, double tolerance) {
  Plan plan{std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0, {}};
  Excess excess(in, plan.buckets, share, backlog, tolerance);
  if (excess.empty()) return plan;
  move_idle(in, excess, plan);
  // What idle buckets could not fix: busy ones, held first (held_moves.hpp).
  const std::vector<std::uint32_t> busy = candidates(in, plan.buckets, in.holdable, excess);
  for (std::uint32_t b : busy) {
    if (plan.holds.size() >= in.max_holds) break;
    const MemberIndex from = plan.buckets[b];
    const MemberIndex to = excess.destination(b, from);
    if (to == bond::kNoMember) continue;
    plan.holds.push_back({b, to});
    excess.move(b, from, to);
  }
  // A held elephant may leave its destination above target: its idle buckets make room now,
  // before the elephant arrives, rather than after it has filled that member's queue.
  if (!plan.holds.empty()) move_idle(in, excess, plan);
  return plan;
}

}  // namespace braid::sched
