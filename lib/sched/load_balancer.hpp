// Moves idle buckets so that each member's load matches its target share: the shared core of
// lqf (equal shares, queue backlog counted as load) and adaptive (shares follow the weights).
// Only buckets the input marks movable (idle past the flowlet gap) and that carried traffic
// recently are candidates; the heaviest go first, each to the member furthest below its target,
// and only when the pair ends closer to balance than before, so two members never trade the same
// bucket back and forth. No bucket goes to a member it alone would overload; a bucket that alone
// overloads its own member (an elephant on a congested one) goes where it fits even if that
// member then has to shed its smaller buckets.
#pragma once

#include <span>

#include "sched/policy.hpp"

namespace braid::sched {

// `share`: each member's fraction of the total (0 for members that do not distribute);
// `backlog`: load a member already has that no bucket accounts for (its queue), in the same
// unit as bucket_load; `tolerance`: relative overload a member may keep (0.02 = 2%), so small
// noise does not churn the table.
Plan balance_load(const PlanInput& in, std::span<const double> share,
                  std::span<const double> backlog, double tolerance);

}  // namespace braid::sched
