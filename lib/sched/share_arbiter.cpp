#include "sched/share_arbiter.hpp"

#include <algorithm>
#include <utility>

namespace braid::sched {
namespace {

constexpr double kPermilleScale = 1000.0;
constexpr double kLoosenFactor = 1.25;        // per period once the queue is no longer busy
constexpr double kLiftFactor = 2.0;           // a limit this far above the offer is no limit
constexpr std::uint32_t kBacklogPeriods = 4;  // the backlog above target drains over these

std::uint32_t to_pps(double pps) {
  return pps >= static_cast<double>(kUnlimitedPps - 1) ? kUnlimitedPps - 1
                                                       : static_cast<std::uint32_t>(pps);
}

}  // namespace

ShareArbiter::ShareArbiter(std::vector<std::uint32_t> min_share_permille,
                           std::vector<std::uint32_t> uses, std::size_t members)
    : shares_(std::move(min_share_permille)),
      uses_(std::move(uses)),
      members_(members),
      state_(members),
      limit_pps_(shares_.size() * members, kUnlimitedPps) {
  uses_.resize(shares_.size(), UINT32_MAX);
}

void ShareArbiter::step(std::uint64_t elapsed_ns, std::span<const ShareMember> members,
                        std::span<const std::uint64_t> offered) {
  for (std::size_t m = 0; m < members_ && m < members.size(); ++m) {
    MemberState& state = state_[m];
    const ShareMember& now = members[m];
    const std::optional<std::uint32_t> depth_before = state.depth;
    const std::optional<std::uint64_t> sent_before = state.sent;
    state.depth = now.depth;
    state.sent = now.sent;
    if (!now.distributing || !now.depth || !now.sent || !depth_before || !sent_before ||
        elapsed_ns == 0) {
      lift(m);  // nothing to judge by, or no traffic to share
      continue;
    }
    // A counter that went back (the port was reset) sent nothing we can tell.
    const double carried =
        *now.sent >= *sent_before ? static_cast<double>(*now.sent - *sent_before) : 0.0;
    std::uint64_t offered_total = 0;
    for (std::size_t c = 0; c < shares_.size(); ++c)
      offered_total += offered[c * members_ + m];
    const double per_second = 1e9 / static_cast<double>(elapsed_ns);
    // Busy at both ends: the link sent all it could in between, so `carried` is its capacity.
    const bool busy = *depth_before > 0 && *now.depth > 0;
    const bool growing = static_cast<double>(offered_total) > carried;
    if (busy && (state.limited || (*now.depth >= kShortDepth && growing))) {
      arbitrate(m, carried, *now.depth, per_second, offered);
    } else if (state.limited) {
      loosen(m, per_second, offered);
    }
  }
}

void ShareArbiter::arbitrate(std::size_t m, double carried, std::uint32_t depth, double per_second,
                             std::span<const std::uint64_t> offered) {
  double reserved_offered = 0;
  double reserved_share = 0;
  double giving_offered = 0;
  std::size_t giving = 0;
  for (std::size_t c = 0; c < shares_.size(); ++c) {
    const auto packets = static_cast<double>(offered[c * members_ + m]);
    if (gives_way(c, m)) {
      giving_offered += packets;
      ++giving;
    } else if (shares_[c] != 0 && (uses_[c] >> m & 1) != 0) {
      reserved_offered += packets;
      reserved_share += shares_[c] / kPermilleScale;
    }
  }
  // With no reserved class on the member there is no one to give way to: its queue's own drop
  // shares out the shortage.
  std::size_t reserving = 0;
  for (std::size_t c = 0; c < shares_.size(); ++c)
    reserving += shares_[c] != 0 && (uses_[c] >> m & 1) != 0 ? 1 : 0;
  if (giving == 0 || reserving == 0) {
    lift(m);
    return;
  }
  const double backlog =
      depth > kTargetDepth ? static_cast<double>(depth - kTargetDepth) / kBacklogPeriods : 0.0;
  // The backlog drains from what the reserved classes leave over; their floor is theirs whatever
  // the backlog (a reserved class offering more than its share fills the queue: the tail drop
  // then takes from both, in proportion to what each brings).
  const double budget =
      std::max({0.0, carried - reserved_offered - backlog, (1.0 - reserved_share) * carried});
  bool loose = true;
  for (std::size_t c = 0; c < shares_.size(); ++c) {
    if (!gives_way(c, m)) continue;
    const auto packets = static_cast<double>(offered[c * members_ + m]);
    // Smoothed by one packet each, so a class that offered nothing this period is not shut out.
    const double limit = budget * (packets + 1) / (giving_offered + static_cast<double>(giving));
    loose = loose && limit >= kLiftFactor * packets;
    limit_pps_[c * members_ + m] = to_pps(limit * per_second);
  }
  if (loose) {
    lift(m);
    return;
  }
  state_[m].limited = true;
  state_[m].capacity_pps = carried * per_second;
}

void ShareArbiter::loosen(std::size_t m, double per_second,
                          std::span<const std::uint64_t> offered) {
  bool loose = true;
  for (std::size_t c = 0; c < shares_.size(); ++c) {
    if (!gives_way(c, m)) continue;
    std::uint32_t& limit = limit_pps_[c * members_ + m];
    limit = to_pps(static_cast<double>(limit) * kLoosenFactor + per_second);
    loose = loose && static_cast<double>(limit) >=
                         kLiftFactor * static_cast<double>(offered[c * members_ + m]) * per_second;
  }
  if (loose) lift(m);
}

void ShareArbiter::lift(std::size_t m) {
  state_[m].limited = false;
  for (std::size_t c = 0; c < shares_.size(); ++c)
    limit_pps_[c * members_ + m] = kUnlimitedPps;
}

}  // namespace braid::sched
