// A bond's reserved shares and rate caps on the control thread (classes.list[].min_share_permille,
// rate_cap): every scheduler period it sums what each worker's classes offered each member, runs
// the share arbiter (lib/sched/share_arbiter.hpp) on the members' queues and sent counters, and
// hands each worker its part of every limit (ClassLimits): a rate cap, and a share limit, split by
// what each worker brought of that class (with a floor, so a worker whose flows just arrived is
// not shut out). The workers police against them (lib/bond/dpdk/class_policer.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bond/dpdk/bond.hpp"
#include "sched/scheduler.hpp"
#include "sched/share_arbiter.hpp"

namespace braid::sched {

class ClassPolicing {
 public:
  explicit ClassPolicing(const bond::Bond& bond);

  // Whether `bond` has anything to police (a reserved share or a rate cap).
  static bool wanted(const bond::Bond& bond);

  // Every scheduler period, with the members' inputs as the scheduler gathered them.
  void period(std::uint64_t now_ns, std::span<const MemberInput> members);

  // The arbiter (null: no class reserves a share).
  const ShareArbiter* arbiter() const { return arbiter_ ? &*arbiter_ : nullptr; }

 private:
  using Counts = bond::ClassMemberCounts;
  using PerClass = std::array<std::uint64_t, classify::kMaxClasses>;

  void publish(const std::vector<Counts>& offered, const std::vector<PerClass>& packets);

  const bond::Bond& bond_;
  std::optional<ShareArbiter> arbiter_;
  std::vector<Counts> offered_before_;    // by worker: ClassHits::offered as last read
  std::vector<PerClass> packets_before_;  // by worker: ClassHits::packets as last read
  std::uint64_t last_ns_ = 0;
};

}  // namespace braid::sched
