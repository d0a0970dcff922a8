#include "sched/dpdk/class_policing.hpp"

#include <algorithm>

namespace braid::sched {
namespace {

constexpr std::uint64_t kBytesPerSecondPerMbps = 125'000;
// A worker's part of a limit is at least this fraction of an equal split.
constexpr std::uint64_t kFloorDivisor = 8;

// Worker w's part of `limit`, by what each of the workers brought (`brought`): at least an eighth
// of an equal split each, the parts adding up to the limit.
std::uint64_t part_of(std::uint64_t limit, std::size_t w,
                      const std::vector<std::uint64_t>& brought) {
  const std::size_t workers = brought.size();
  std::uint64_t total = 0;
  for (const std::uint64_t b : brought)
    total += b;
  if (total == 0) return limit / workers;
  const std::uint64_t floor = total / (kFloorDivisor * workers);
  double weights = 0;
  for (const std::uint64_t b : brought)
    weights += static_cast<double>(std::max(b, floor));
  const auto weight = static_cast<double>(std::max(brought[w], floor));
  return static_cast<std::uint64_t>(static_cast<double>(limit) * weight / weights);
}

// What `count(w)` gives for each worker w in `live` (the workers with a block), in that order.
template <typename Count>
std::vector<std::uint64_t> column(const std::vector<std::size_t>& live, Count count) {
  std::vector<std::uint64_t> counts;
  counts.reserve(live.size());
  for (const std::size_t w : live)
    counts.push_back(count(w));
  return counts;
}

}  // namespace

bool ClassPolicing::wanted(const bond::Bond& bond) {
  const std::vector<classify::ClassSpec>& classes = bond.config().classes.classes;
  return std::any_of(classes.begin(), classes.end(), [](const classify::ClassSpec& c) {
    return c.reserved() || c.rate_cap.has_value();
  });
}

ClassPolicing::ClassPolicing(const bond::Bond& bond) : bond_(bond) {
  const std::vector<classify::ClassSpec>& classes = bond.config().classes.classes;
  std::vector<std::uint32_t> shares, uses;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    shares.push_back(classes[c].min_share_permille);
    // The members its config names (none: all of them), whether they distribute now or not.
    std::uint32_t mask = classes[c].members.empty() ? UINT32_MAX : 0u;
    for (const std::uint16_t m : classes[c].members)
      mask |= 1u << m;
    uses.push_back(mask);
  }
  if (bond.config().classes.reserving())
    arbiter_.emplace(std::move(shares), std::move(uses), bond.member_count());
}

void ClassPolicing::period(std::uint64_t now_ns, std::span<const MemberInput> members) {
  const auto& workers = bond_.class_hits();
  offered_before_.resize(workers.size(), Counts{});
  packets_before_.resize(workers.size(), PerClass{});
  std::vector<Counts> offered(workers.size(), Counts{});  // this period's, by worker
  std::vector<PerClass> packets(workers.size(), PerClass{});
  std::vector<std::uint64_t> offered_total(bond_.class_count() * bond_.member_count(), 0);
  for (std::size_t w = 0; w < workers.size(); ++w) {
    if (!workers[w]) continue;
    for (std::size_t c = 0; c < bond_.class_count(); ++c) {
      const std::uint64_t hits = workers[w]->packets[c].get();
      packets[w][c] = hits - packets_before_[w][c];
      packets_before_[w][c] = hits;
      for (std::size_t m = 0; m < bond_.member_count(); ++m) {
        const std::uint64_t now = workers[w]->offered[c][m].get();
        offered[w][c][m] = now - offered_before_[w][c][m];
        offered_before_[w][c][m] = now;
        offered_total[c * bond_.member_count() + m] += offered[w][c][m];
      }
    }
  }
  if (arbiter_ && last_ns_ != 0 && now_ns > last_ns_) {
    std::vector<ShareMember> share_members(bond_.member_count());
    for (std::size_t m = 0; m < share_members.size() && m < members.size(); ++m) {
      share_members[m].distributing = members[m].distributing;
      share_members[m].depth = members[m].queue_depth;
      if (members[m].counters.has(CongestionCounters::kTxPackets))
        share_members[m].sent = members[m].counters.tx_packets;
    }
    arbiter_->step(now_ns - last_ns_, share_members, offered_total);
  }
  last_ns_ = now_ns;
  publish(offered, packets);
}

void ClassPolicing::publish(const std::vector<Counts>& offered,
                            const std::vector<PerClass>& packets) {
  const auto& workers = bond_.class_hits();
  const std::vector<classify::ClassSpec>& classes = bond_.config().classes.classes;
  std::vector<std::size_t> live;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    if (workers[w]) live.push_back(w);
  }
  for (std::size_t i = 0; i < live.size(); ++i) {
    bond::ClassLimits& limits = workers[live[i]]->limits;
    for (std::size_t c = 0; c < bond_.class_count(); ++c) {
      std::uint64_t cap = 0;
      if (classes[c].rate_cap) {
        cap = std::max<std::uint64_t>(
            1, part_of(classes[c].rate_cap->mbps * kBytesPerSecondPerMbps, i,
                       column(live, [&](std::size_t w) { return packets[w][c]; })));
      }
      limits.cap_bytes_per_s[c].store(cap, std::memory_order_relaxed);
      for (std::size_t m = 0; m < bond_.member_count(); ++m) {
        const std::uint32_t limit = arbiter_ ? arbiter_->limit_pps(c, m) : kUnlimitedPps;
        std::uint32_t mine = bond::kNoShareLimit;
        if (limit != kUnlimitedPps)
          mine = static_cast<std::uint32_t>(
              part_of(limit, i, column(live, [&](std::size_t w) { return offered[w][c][m]; })));
        limits.share_pps[c][m].store(mine, std::memory_order_relaxed);
      }
    }
    limits.version.store(limits.version.load(std::memory_order_relaxed) + 1,
                         std::memory_order_release);
  }
}

}  // namespace braid::sched
