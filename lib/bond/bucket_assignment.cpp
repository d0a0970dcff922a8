#include "bond/bucket_assignment.hpp"

#include <algorithm>
#include <numeric>

namespace braid::bond {
namespace {

// Smooth weighted round robin (the nginx scheme): each step every member gains its weight, the
// member with the most credit is chosen and pays the total. The sequence interleaves members in
// proportion to their weights at every prefix length.
class SmoothRoundRobin {
 public:
  explicit SmoothRoundRobin(std::span<const std::uint32_t> weights)
      : weights_(weights.begin(), weights.end()), credit_(weights.size(), 0) {
    total_ = std::accumulate(weights_.begin(), weights_.end(), std::int64_t{0});
  }

  // Next member among those `eligible` (nullptr: all with a weight); kNoMember if none.
  MemberIndex next(const std::vector<bool>* eligible = nullptr) {
    std::int64_t total = 0;
    MemberIndex best = kNoMember;
    for (std::size_t m = 0; m < weights_.size(); ++m) {
      if (weights_[m] == 0 || (eligible != nullptr && !(*eligible)[m])) continue;
      credit_[m] += weights_[m];
      total += weights_[m];
      if (best == kNoMember || credit_[m] > credit_[best]) best = static_cast<MemberIndex>(m);
    }
    if (best != kNoMember) credit_[best] -= total;
    return best;
  }

  bool empty() const { return total_ == 0; }

 private:
  std::vector<std::int64_t> weights_;
  std::vector<std::int64_t> credit_;
  std::int64_t total_ = 0;
};

}  // namespace

std::vector<std::uint32_t> bucket_quotas(std::span<const std::uint32_t> weights,
                                         std::uint32_t buckets) {
  std::vector<std::uint32_t> quotas(weights.size(), 0);
  const std::uint64_t total = std::accumulate(weights.begin(), weights.end(), std::uint64_t{0});
  if (total == 0) return quotas;
  std::vector<std::pair<std::uint64_t, std::size_t>> remainders;
  std::uint32_t assigned = 0;
  for (std::size_t m = 0; m < weights.size(); ++m) {
    const std::uint64_t exact = std::uint64_t{weights[m]} * buckets;
    quotas[m] = static_cast<std::uint32_t>(exact / total);
    assigned += quotas[m];
    if (weights[m] != 0) remainders.emplace_back(exact % total, m);
  }
  // Largest remainder first; ties to the lower member index, so the result is deterministic.
  std::sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (std::size_t i = 0; assigned < buckets; ++i, ++assigned)
    ++quotas[remainders[i].second];
  return quotas;
}

std::vector<MemberIndex> interleaved_assignment(std::span<const std::uint32_t> weights,
                                                std::uint32_t buckets) {
  std::vector<MemberIndex> assignment(buckets, kNoMember);
  SmoothRoundRobin order(weights);
  if (order.empty()) return assignment;
  for (MemberIndex& bucket : assignment)
    bucket = order.next();
  return assignment;
}

RebalanceResult rebalance(std::span<const MemberIndex> current,
                          std::span<const std::uint32_t> weights,
                          std::span<const MemberIndex> home) {
  const auto buckets = static_cast<std::uint32_t>(current.size());
  RebalanceResult result{std::vector<MemberIndex>(current.begin(), current.end()), 0};
  const std::vector<std::uint32_t> quotas = bucket_quotas(weights, buckets);
  const bool homed = home.size() == current.size();
  const std::vector<std::uint32_t> counts = bucket_counts(current, weights.size());
  // A bucket away from a home that is short of its quota goes back there first.
  const auto returning = [&](std::uint32_t b) {
    const MemberIndex h = homed ? home[b] : kNoMember;
    return h < weights.size() && h != current[b] && counts[h] < quotas[h];
  };
  // A member above quota frees first the buckets it holds for a returning home, then the last
  // of its others; at or below quota it keeps everything (as without homes).
  std::vector<std::uint32_t> held_for_home(weights.size(), 0);
  for (std::uint32_t b = 0; b < buckets; ++b) {
    if (current[b] < weights.size() && returning(b)) ++held_for_home[current[b]];
  }
  std::vector<std::uint32_t> keep_returning(weights.size(), 0), keep_others(weights.size(), 0);
  for (std::size_t m = 0; m < weights.size(); ++m) {
    const std::uint32_t excess = counts[m] > quotas[m] ? counts[m] - quotas[m] : 0;
    const std::uint32_t given_back = std::min(excess, held_for_home[m]);
    keep_returning[m] = held_for_home[m] - given_back;
    keep_others[m] = counts[m] - held_for_home[m] - (excess - given_back);
  }
  std::vector<std::uint32_t> kept(weights.size(), 0), kept_returning(weights.size(), 0);
  std::vector<std::uint32_t> freed;
  for (std::uint32_t b = 0; b < buckets; ++b) {
    const MemberIndex member = result.buckets[b];
    bool keep = false;
    if (member < weights.size()) {
      if (returning(b)) {
        keep = kept_returning[member] < keep_returning[member];
        if (keep) ++kept_returning[member];
      } else {
        keep = kept[member] - kept_returning[member] < keep_others[member];
      }
    }
    if (keep) {
      ++kept[member];
    } else {
      freed.push_back(b);
    }
  }
  SmoothRoundRobin order(weights);
  std::vector<bool> needs(weights.size());
  for (std::size_t m = 0; m < weights.size(); ++m)
    needs[m] = kept[m] < quotas[m];
  std::vector<std::uint32_t> unplaced;
  for (std::uint32_t b : freed) {
    const MemberIndex h = homed ? home[b] : kNoMember;
    if (h < weights.size() && needs[h]) {
      if (h != result.buckets[b]) ++result.moved;
      result.buckets[b] = h;
      if (++kept[h] == quotas[h]) needs[h] = false;
    } else {
      unplaced.push_back(b);
    }
  }
  for (std::uint32_t b : unplaced) {
    const MemberIndex member = order.next(&needs);
    if (member != result.buckets[b]) ++result.moved;
    result.buckets[b] = member;
    if (member == kNoMember) continue;
    if (++kept[member] == quotas[member]) needs[member] = false;
  }
  return result;
}

void update_homes(std::span<MemberIndex> home, std::span<const MemberIndex> buckets,
                  std::span<const std::uint32_t> nominal_weights) {
  const std::vector<std::uint32_t> nominal =
      bucket_quotas(nominal_weights, static_cast<std::uint32_t>(buckets.size()));
  const std::vector<std::uint32_t> counts = bucket_counts(buckets, nominal_weights.size());
  for (std::size_t b = 0; b < buckets.size() && b < home.size(); ++b) {
    const MemberIndex h = home[b];
    const bool short_home = h < nominal.size() && h != buckets[b] && counts[h] < nominal[h];
    if (!short_home && buckets[b] != kHeldBucket) home[b] = buckets[b];
  }
}

RebalanceResult reassign_orphans(std::span<const MemberIndex> current,
                                 std::span<const std::uint32_t> weights) {
  const auto buckets = static_cast<std::uint32_t>(current.size());
  RebalanceResult result{std::vector<MemberIndex>(current.begin(), current.end()), 0};
  const std::vector<std::uint32_t> quotas = bucket_quotas(weights, buckets);
  std::vector<std::uint32_t> kept(weights.size(), 0);
  std::vector<std::uint32_t> orphans;
  for (std::uint32_t b = 0; b < buckets; ++b) {
    const MemberIndex member = result.buckets[b];
    if (member < weights.size() && weights[member] != 0) {
      ++kept[member];
    } else if (member != kHeldBucket) {
      orphans.push_back(b);
    }
  }
  SmoothRoundRobin order(weights);
  std::vector<bool> needs(weights.size());
  for (std::size_t m = 0; m < weights.size(); ++m)
    needs[m] = kept[m] < quotas[m];
  for (std::uint32_t b : orphans) {
    MemberIndex member = order.next(&needs);
    if (member == kNoMember) member = order.next();  // everyone at quota: plain WRR
    if (member != result.buckets[b]) ++result.moved;
    result.buckets[b] = member;
    if (member != kNoMember && ++kept[member] >= quotas[member]) needs[member] = false;
  }
  return result;
}

std::vector<std::uint32_t> bucket_counts(std::span<const MemberIndex> buckets,
                                         std::size_t member_count) {
  std::vector<std::uint32_t> counts(member_count, 0);
  for (MemberIndex member : buckets) {
    if (member < member_count) ++counts[member];
  }
  return counts;
}

}  // namespace braid::bond
