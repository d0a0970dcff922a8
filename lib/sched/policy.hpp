// A distribution policy: once per control period it looks at the bond's current bucket table,
// each bucket's recent load and whether it may move (its flowlet gap has passed), and each
// member's state, and says which idle buckets go where. Policies never move a busy bucket: the
// input only offers movable ones. Pure: no DPDK, time is injected.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bond/bucket_assignment.hpp"

namespace braid::sched {

using bond::MemberIndex;

enum class PolicyKind : std::uint8_t { kHash, kWrr, kLqf, kAdaptive, kLatency, kSpray };

// Whether the policy moves buckets flowlet by flowlet (the scheduler plans, workers record
// activity). hash keeps its table static; spray sends a class's packets round robin over the
// table, per packet, so where a bucket points needs no planning.
inline bool moves_flowlets(PolicyKind kind) {
  return kind != PolicyKind::kHash && kind != PolicyKind::kSpray;
}

std::string_view policy_name(PolicyKind kind);
std::optional<PolicyKind> parse_policy(std::string_view name);

struct MemberState {
  bool distributing = false;
  std::uint32_t weight = 0;                  // effective weight (configured x feedback), 0 = none
  std::optional<std::uint32_t> queue_depth;  // packets waiting to leave, when measurable
  // The expected wait of a packet queued now (delay_estimate.hpp), when measurable.
  std::optional<std::uint64_t> delay_ns;
  double drain_per_ns = 0;  // packets per ns the member sends while busy; 0: not measured yet
  double sent_per_ns = 0;   // what it sent last period, per ns
};

struct PlanInput {
  std::span<const MemberState> members;
  std::span<const MemberIndex> buckets;  // the table as published now
  std::span<const double> bucket_load;   // packets per period (smoothed), by bucket
  std::span<const bool> movable;         // idle longer than the flowlet gap, by bucket
  std::uint32_t max_moves = 0;           // per period: bounds churn and table work
  // Busy buckets that can still move by being held first (held_moves.hpp): their member's
  // queue stands longer than the flowlet gap, so they will not go idle by themselves. A policy
  // asks for holds only where moving idle buckets could not bring a member back to its target.
  // Empty: no holds.
  std::span<const bool> holdable;
  std::uint32_t max_holds = 0;  // per period
  std::uint64_t period_ns = 0;  // what bucket_load is per
};

struct HoldRequest {
  std::uint32_t bucket = 0;
  MemberIndex to = 0;
};

struct Plan {
  std::vector<MemberIndex> buckets;  // the proposed table (a copy of the input when unchanged)
  std::uint32_t moved = 0;
  std::vector<HoldRequest> holds;  // busy buckets to move by holding them first
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual PolicyKind kind() const = 0;
  // Whether weights follow congestion feedback (adaptive) rather than the configuration.
  virtual bool follows_feedback() const { return false; }
  // Whether it moves busy buckets off a standing queue by holding them (held_moves.hpp): only a
  // policy that knows where a busy bucket's load fits (adaptive's weights, latency's spare
  // capacity); lqf's equal shares would chase an elephant from one member's queue to the next.
  virtual bool holds_busy() const { return follows_feedback(); }
  virtual Plan plan(const PlanInput& in) = 0;
};

// One file each: hash_policy.cpp, wrr_policy.cpp, lqf_policy.cpp, adaptive_policy.cpp,
// latency_policy.cpp, spray_policy.cpp.
std::unique_ptr<Policy> make_hash_policy();
std::unique_ptr<Policy> make_wrr_policy();
std::unique_ptr<Policy> make_lqf_policy();
std::unique_ptr<Policy> make_adaptive_policy();
std::unique_ptr<Policy> make_latency_policy();
std::unique_ptr<Policy> make_spray_policy();
std::unique_ptr<Policy> make_policy(PolicyKind kind);

}  // namespace braid::sched
