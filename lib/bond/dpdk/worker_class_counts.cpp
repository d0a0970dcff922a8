#include "bond/dpdk/worker_class_counts.hpp"

namespace braid::bond {

BucketActivityArray* WorkerClassCounts::activity_for_worker(std::size_t worker) {
  if (activity_.size() <= worker) activity_.resize(worker + 1);
  if (!activity_[worker]) activity_[worker] = std::make_unique<BucketActivityArray>(slots_);
  return activity_[worker].get();
}

ClassHits* WorkerClassCounts::class_hits_for_worker(std::size_t worker) {
  if (!classes_) return nullptr;
  if (class_hits_.size() <= worker) class_hits_.resize(worker + 1);
  if (!class_hits_[worker]) class_hits_[worker] = std::make_unique<ClassHits>();
  return class_hits_[worker].get();
}

ClassCounts WorkerClassCounts::sum(PerClass ClassHits::*counters) const {
  ClassCounts total{};
  for (const auto& worker : class_hits_) {
    if (!worker) continue;
    for (std::size_t c = 0; c < total.size(); ++c)
      total[c] += ((*worker).*counters)[c].get();
  }
  return total;
}

ClassMemberCounts WorkerClassCounts::sum(PerClassMember ClassHits::*counters) const {
  ClassMemberCounts total{};
  for (const auto& worker : class_hits_) {
    if (!worker) continue;
    for (std::size_t c = 0; c < total.size(); ++c) {
      for (std::size_t m = 0; m < kMaxMembers; ++m)
        total[c][m] += ((*worker).*counters)[c][m].get();
    }
  }
  return total;
}

ClassMemberCounts WorkerClassCounts::share_limits() const {
  ClassMemberCounts total{};
  bool any_worker = false;
  for (const auto& worker : class_hits_) {
    if (!worker) continue;
    any_worker = true;
    for (std::size_t c = 0; c < total.size(); ++c) {
      for (std::size_t m = 0; m < kMaxMembers; ++m) {
        const std::uint32_t limit = worker->limits.share_pps[c][m].load(std::memory_order_relaxed);
        // One worker without a limit: none for the bond.
        total[c][m] = limit == kNoShareLimit || total[c][m] == kNoShareLimit ? kNoShareLimit
                                                                             : total[c][m] + limit;
      }
    }
  }
  if (!any_worker) {
    for (auto& row : total)
      row.fill(kNoShareLimit);
  }
  return total;
}

}  // namespace braid::bond
