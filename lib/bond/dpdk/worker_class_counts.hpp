// What each worker keeps for one bond that the control side reads: its per-class counts and
// limits (ClassHits: packets, ECN marks, drops by class and member) and its per-bucket activity
// (the scheduler's flowlets). One block per worker, created before the workers start and
// written by that worker alone; the sums over the workers are what `show classes` and the
// metrics print.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "bond/bucket_activity.hpp"
#include "bond/dpdk/class_hits.hpp"
#include "classify/class_spec.hpp"

namespace braid::bond {

using ClassCounts = std::array<std::uint64_t, classify::kMaxClasses>;

class WorkerClassCounts {
 public:
  // `classes`: the bond has traffic classes (else no ClassHits); `slots`: every class's buckets.
  WorkerClassCounts(bool classes, std::uint32_t slots) : classes_(classes), slots_(slots) {}

  // Worker w's own blocks (created on first request); class_hits is nullptr without classes.
  BucketActivityArray* activity_for_worker(std::size_t worker);
  ClassHits* class_hits_for_worker(std::size_t worker);
  const std::vector<std::unique_ptr<BucketActivityArray>>& activity() const { return activity_; }
  const std::vector<std::unique_ptr<ClassHits>>& class_hits() const { return class_hits_; }

  // Summed over the workers.
  ClassCounts packets() const { return sum(&ClassHits::packets); }
  ClassMemberCounts ecn_marked() const { return sum(&ClassHits::ecn_marked); }
  ClassCounts ecn_not_ect() const { return sum(&ClassHits::ecn_not_ect); }
  ClassCounts rate_capped() const { return sum(&ClassHits::rate_capped); }
  ClassMemberCounts gave_way() const { return sum(&ClassHits::gave_way); }
  ClassMemberCounts offered() const { return sum(&ClassHits::offered); }
  ClassMemberCounts storm_dropped() const { return sum(&ClassHits::storm_dropped); }
  // What each class may send on each member, packets a second over all workers (kNoShareLimit:
  // no limit, also where one worker has none).
  ClassMemberCounts share_limits() const;

 private:
  using PerClass = std::array<datapath::Counter, classify::kMaxClasses>;
  using PerClassMember =
      std::array<std::array<datapath::Counter, kMaxMembers>, classify::kMaxClasses>;
  ClassCounts sum(PerClass ClassHits::*counters) const;
  ClassMemberCounts sum(PerClassMember ClassHits::*counters) const;

  bool classes_;
  std::uint32_t slots_;
  std::vector<std::unique_ptr<BucketActivityArray>> activity_;
  std::vector<std::unique_ptr<ClassHits>> class_hits_;
};

}  // namespace braid::bond
