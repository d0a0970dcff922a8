// One bond's scheduler on the control thread, pure: every period it takes the workers' bucket
// activity, each member's queue depth and congestion counters, runs the feedback law (adaptive)
// and the policy, and returns the weights and the bucket table the bond should publish. The DPDK
// side (sched/dpdk/bond_scheduler) gathers the inputs and applies the result.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sched/aimd.hpp"
#include "sched/congestion.hpp"
#include "sched/flowlet_tracker.hpp"
#include "sched/policy.hpp"

namespace braid::sched {

inline constexpr std::uint64_t kDefaultPeriodNs = 10'000'000;  // 10 ms
inline constexpr std::size_t kHistoryCapacity = 128;

struct Settings {
  PolicyKind policy = PolicyKind::kHash;
  std::vector<std::uint32_t> weights;  // configured, by member; missing ones are 1
  std::uint64_t flowlet_gap_ns = kDefaultFlowletGapNs;
  std::uint64_t period_ns = kDefaultPeriodNs;
  std::uint32_t max_moves = 64;  // buckets per period
  AimdSettings aimd;
  ScoreSettings score;
};

struct MemberInput {
  bool distributing = false;
  std::optional<std::uint32_t> queue_depth;
  CongestionCounters counters;  // cumulative
};

struct StepResult {
  std::optional<std::vector<std::uint32_t>> weights;  // new effective weights, when changed
  std::optional<std::vector<MemberIndex>> buckets;    // new table, when buckets moved
  std::uint32_t moved = 0;
};

struct WeightChange {
  std::uint64_t time_ns = 0;
  std::uint16_t member = 0;
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::string cause;
};

struct MemberSnapshot {
  std::uint32_t configured_weight = 1;
  std::uint32_t weight = 0;  // effective: configured x factor (permille)
  std::uint32_t factor_permille = 1000;
  double score = 0;  // smoothed
  CongestionInputs last;
  CongestionCounters counters;
  std::optional<std::uint32_t> queue_depth;
  double load = 0;  // packets per period on its buckets
};

struct Snapshot {
  PolicyKind policy = PolicyKind::kHash;
  std::uint64_t flowlet_gap_ns = 0;
  std::uint64_t period_ns = 0;
  std::uint64_t periods = 0;
  std::uint64_t moves = 0;
  std::uint64_t weight_changes = 0;
  std::vector<MemberSnapshot> members;
  std::vector<WeightChange> history;  // oldest first, at most kHistoryCapacity
};

class Scheduler {
 public:
  Scheduler(Settings settings, std::size_t members, std::uint32_t buckets);

  StepResult step(std::uint64_t now_ns, std::span<const MemberInput> members,
                  std::span<const BucketActivity> activity, std::span<const MemberIndex> buckets);

  // Run-time changes (console): effective from the next step.
  void set_policy(PolicyKind kind, std::uint64_t now_ns);
  void set_weight(std::size_t member, std::uint32_t weight, std::uint64_t now_ns);
  void set_flowlet_gap_ns(std::uint64_t gap_ns) { flowlets_.set_gap_ns(gap_ns); }
  std::uint64_t flowlet_gap_ns() const { return flowlets_.gap_ns(); }

  PolicyKind policy() const { return policy_->kind(); }
  const Settings& settings() const { return settings_; }
  // Effective weights (what the bond should use for quotas), by member.
  std::vector<std::uint32_t> weights() const;
  std::uint64_t moves() const { return flowlets_.moves(); }
  Snapshot snapshot() const;

 private:
  void record(std::uint64_t now_ns, std::size_t member, std::uint32_t from, std::uint32_t to,
              std::string cause);

  Settings settings_;
  std::unique_ptr<Policy> policy_;
  FlowletTracker flowlets_;
  std::vector<AimdController> aimd_;
  std::vector<CongestionCounters> previous_;
  std::vector<CongestionInputs> last_inputs_;
  std::vector<std::optional<std::uint32_t>> queue_depth_;
  std::vector<double> member_load_;
  std::vector<std::uint64_t> sent_before_;
  std::vector<std::uint32_t> last_weights_;
  std::uint64_t last_step_ns_ = 0;
  std::uint64_t periods_ = 0;
  std::uint64_t weight_changes_ = 0;
  std::deque<WeightChange> history_;
};

}  // namespace braid::sched
