// latency: a flowlet that may move goes to the member where its next packets wait least. Each
// member's wait is its queue over its drain rate (delay_estimate.hpp), so a member paused half
// the time or shared with a bulk class looks as slow as it is, whatever the queue's length in
// packets; the plan judges it at the period's end, with the load the plan leaves on it: a queue
// that drains within the period anyway costs nothing, and each flowlet moved adds its load to its
// destination and takes it off its source. So one period never sends every flowlet of a slow
// member to the same fast one, nor moves more of them than relieve the slow one (the rest came
// back the next period). A flowlet moves only for a clear gain (kMinGainNs and kRelativeGain:
// queue noise of a packet or two does not churn the table). A member whose delay cannot be
// measured (no queue probe) is not a destination and its flowlets stay: without a probe this
// policy is hash. Busy flowlets on a standing queue move by being held (held_moves.hpp). Members
// get equal weights (under failover the bond's quotas are equal), cut by health like every policy:
// a degraded member drains at its health fraction.
#include <algorithm>
#include <limits>
#include <span>
#include <vector>

#include "sched/policy.hpp"

namespace braid::sched {
namespace {

constexpr double kMinGainNs = 2'000;  // 2 us: below it no receiver can tell
constexpr double kRelativeGain = 0.10;
constexpr double kInfinite = std::numeric_limits<double>::infinity();

// A member as the plan sees it: the queue it has now and how that queue ends the period with the
// load the plan leaves on it. Its cost is the wait at the period's end, when the plan's moves
// have had their effect: a queue that drains within the period anyway costs nothing, one that
// keeps growing costs what it will have grown to.
struct Destination {
  double now_ns = kInfinite;  // the wait now (queue over drain); infinite: not a destination
  double drain_per_ns = 0;    // 0: unknown, the load it carries adds no delay
  double queue = 0;           // packets waiting now
  double excess = 0;          // packets per period it gets beyond what it drains (< 0: spare)
};

std::vector<Destination> destinations(const PlanInput& in) {
  std::uint32_t max_weight = 0;
  double fastest = 0;
  for (const MemberState& m : in.members) {
    if (!m.distributing) continue;
    max_weight = std::max(max_weight, m.weight);
    fastest = std::max(fastest, m.drain_per_ns);
  }
  std::vector<Destination> out(in.members.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const MemberState& m = in.members[i];
    if (!m.distributing || m.weight == 0 || !m.delay_ns || max_weight == 0) continue;
    // A member never seen busy drains at least what it sent, and like the fastest that was
    // busy (members are alike as a rule).
    const double drain = (m.drain_per_ns > 0 ? m.drain_per_ns : std::max(fastest, m.sent_per_ns)) *
                         m.weight / max_weight;
    out[i].now_ns = static_cast<double>(*m.delay_ns) * max_weight / m.weight;
    if (drain > 0 && in.period_ns != 0) {
      out[i].drain_per_ns = drain;
      out[i].queue = out[i].now_ns * drain;
      out[i].excess = (m.sent_per_ns - drain) * static_cast<double>(in.period_ns);
    }
  }
  return out;
}

// The wait on `at` at the period's end with `extra` packets per period more (less, negative).
double end_wait_ns(const Destination& at, double extra) {
  if (at.now_ns == kInfinite || at.drain_per_ns <= 0) return at.now_ns;
  return std::max(0.0, at.queue + at.excess + extra) / at.drain_per_ns;
}

class Planner {
 public:
  explicit Planner(const PlanInput& in) : in_(in), member_(destinations(in)) {}

  // A bucket on a member that no longer distributes (or has no weight) must go; one on a
  // member whose delay is unknown (negative) stays.
  double from_cost(MemberIndex from) const {
    if (from >= in_.members.size()) return kInfinite;
    const MemberState& m = in_.members[from];
    if (!m.distributing || m.weight == 0) return kInfinite;
    return m.delay_ns ? end_wait_ns(member_[from], 0) : -1.0;
  }

  // Buckets marked in `mask` that carried traffic and wait somewhere, the longest waits first
  // and the heaviest flowlets of each first.
  std::vector<std::uint32_t> candidates(std::span<const bool> mask) const {
    std::vector<std::uint32_t> order;
    for (std::uint32_t b = 0; b < in_.buckets.size() && b < mask.size(); ++b) {
      if (mask[b] && in_.bucket_load[b] > 0 && from_cost(in_.buckets[b]) > 0) order.push_back(b);
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const double ca = from_cost(in_.buckets[a]);
      const double cb = from_cost(in_.buckets[b]);
      return ca != cb ? ca > cb : in_.bucket_load[a] > in_.bucket_load[b];
    });
    return order;
  }

  // Where bucket `b` waits least, counting the load it brings there, when that is a clear gain
  // over where it is; the load then moves with it, off its source (whose wait shortens: without
  // that, every flowlet of a slow member left in one period for a queue the first few moves had
  // relieved, and came back the next) and onto its destination. kNoMember: it stays.
  MemberIndex destination(std::uint32_t b) {
    const MemberIndex from = in_.buckets[b];
    const double load = in_.bucket_load[b];
    const double now = from_cost(from);
    MemberIndex to = bond::kNoMember;
    double best = kInfinite;
    for (std::size_t m = 0; m < member_.size(); ++m) {
      if (m == from || member_[m].now_ns == kInfinite) continue;
      const double cost = end_wait_ns(member_[m], load);
      if (cost < best) {
        best = cost;
        to = static_cast<MemberIndex>(m);
      }
    }
    if (to == bond::kNoMember) return to;
    if (now != kInfinite && now - best <= std::max(kMinGainNs, kRelativeGain * now))
      return bond::kNoMember;
    member_[to].excess += load;
    if (from < member_.size()) member_[from].excess -= load;
    return to;
  }

 private:
  const PlanInput& in_;
  std::vector<Destination> member_;
};

class LatencyPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kLatency; }
  // A busy flowlet behind a standing queue never goes idle long enough to move: held, its
  // packets wait out the old queue once (as they would have in it) and then go where waits are
  // short.
  bool holds_busy() const override { return true; }

  Plan plan(const PlanInput& in) override {
    Plan plan{std::vector<MemberIndex>(in.buckets.begin(), in.buckets.end()), 0, {}};
    Planner planner(in);
    for (const std::uint32_t b : planner.candidates(in.movable)) {
      if (plan.moved >= in.max_moves) break;
      const MemberIndex to = planner.destination(b);
      if (to == bond::kNoMember) continue;
      plan.buckets[b] = to;
      ++plan.moved;
    }
    for (const std::uint32_t b : planner.candidates(in.holdable)) {
      if (plan.holds.size() >= in.max_holds) break;
      const MemberIndex to = planner.destination(b);
      if (to != bond::kNoMember) plan.holds.push_back({b, to});
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<Policy> make_latency_policy() {
  return std::make_unique<LatencyPolicy>();
}

}  // namespace braid::sched
