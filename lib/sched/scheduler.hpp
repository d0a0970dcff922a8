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
#include "sched/delay_estimate.hpp"
#include "sched/flowlet_tracker.hpp"
#include "sched/held_moves.hpp"
#include "sched/policy.hpp"
#include "sched/queue_history.hpp"

namespace braid::sched {

inline constexpr std::uint64_t kDefaultPeriodNs = 10'000'000;  // 10 ms
// MemberInput::counted_ns for an input that is complete as of now (simulations, tests).
inline constexpr std::uint64_t kCountedNow = UINT64_MAX;
inline constexpr std::size_t kHistoryCapacity = 128;

struct Settings {
  PolicyKind policy = PolicyKind::kHash;
  std::vector<std::uint32_t> weights;  // configured, by member; missing ones are 1
  std::uint64_t flowlet_gap_ns = kDefaultFlowletGapNs;
  std::uint64_t period_ns = kDefaultPeriodNs;
  std::uint32_t max_moves = 64;  // buckets per period
  std::uint32_t max_holds = 2;   // busy buckets held at a time (held_moves.hpp); 0: never
  AimdSettings aimd;
  ScoreSettings score;
};

struct MemberInput {
  bool distributing = false;
  std::optional<std::uint32_t> queue_depth;
  // Everything the workers distributed to the member before this time is in queue_depth (when
  // known) or already sent (queue_history.hpp).
  std::uint64_t counted_ns = kCountedNow;
  CongestionCounters counters;  // cumulative
  // Every worker distributed on this table generation or a newer one when it measured the
  // member's queue: nothing a held bucket's older tables sent can reach the member after that
  // measurement (held_moves.hpp). kAckedAll: every generation (simulations, tests).
  std::uint64_t acked_generation = kAckedAll;
  // The share of its weight the member's health leaves it (lib/health: 1000 healthy,
  // degraded_weight_permille degraded): every policy plans with weight x this / 1000, so a
  // degraded member stays cut whatever weights the policy itself sets.
  std::uint32_t health_permille = 1000;
};

struct StepResult {
  std::optional<std::vector<std::uint32_t>> weights;  // new effective weights, when changed
  std::optional<std::vector<MemberIndex>> buckets;    // new table, when moves began or completed
  std::uint32_t moved = 0;                            // moves completed
  std::uint32_t held = 0;                             // busy buckets whose hold began
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
  double load = 0;                        // packets per period on its buckets
  std::optional<std::uint64_t> delay_ns;  // expected queueing delay (delay_estimate.hpp)
  double drain_per_ns = 0;                // measured while busy; 0: not yet
};

struct Snapshot {
  PolicyKind policy = PolicyKind::kHash;
  std::uint64_t flowlet_gap_ns = 0;
  std::uint64_t period_ns = 0;
  std::uint64_t periods = 0;
  std::uint64_t moves = 0;
  std::uint64_t held_moves = 0;  // moves of busy buckets completed by holding them
  std::uint32_t holding = 0;     // busy buckets held now
  // Moves given up (back to the old member) because a worker did not acknowledge the hold.
  std::uint64_t holds_timed_out = 0;
  // Switched to hash and not yet at hash's equal shares: idle buckets still move there.
  bool settling = false;
  std::uint64_t weight_changes = 0;
  std::vector<MemberSnapshot> members;
  std::vector<WeightChange> history;  // oldest first, at most kHistoryCapacity
};

class Scheduler {
 public:
  Scheduler(Settings settings, std::size_t members, std::uint32_t buckets);

  StepResult step(std::uint64_t now_ns, std::span<const MemberInput> members,
                  std::span<const BucketActivity> activity, std::span<const MemberIndex> buckets);
  // Between periods: completes the moves whose bucket's last packet has left its old member
  // (held_moves.hpp). `members` and `activity` as for step(), read now (the old members' sent
  // counters and the buckets' last packets decide); `buckets`: the table as published. The new
  // table when any move completed.
  std::optional<std::vector<MemberIndex>> release(std::uint64_t now_ns,
                                                  std::span<const MemberInput> members,
                                                  std::span<const BucketActivity> activity,
                                                  std::span<const MemberIndex> buckets);
  // When release() next has work; 0 when nothing is held.
  std::uint64_t next_release_ns() const { return holds_.next_release_ns(); }
  // The bond published the table the last step() or release() returned as `generation`: the
  // moves it began wait until every worker has acknowledged it.
  void note_published(std::uint64_t generation) { holds_.note_published(generation); }
  // Moves begun and not complete (their buckets held in the table).
  std::size_t moves_in_progress() const { return holds_.in_progress(); }
  // After a switch to hash: the table is not yet at equal shares. Until it is, step() moves idle
  // buckets there flowlet by flowlet, as wrr with equal weights does: a switch never moves a
  // busy bucket (that would reorder its flow).
  bool settling() const { return settling_; }

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
  std::vector<std::uint64_t> drain_times(std::span<const MemberInput> members,
                                         std::uint64_t elapsed_ns);
  std::uint32_t release_due(std::uint64_t now_ns, std::span<const MemberInput> members,
                            std::span<MemberIndex> table);
  void record_queues(std::uint64_t now_ns, std::span<const MemberInput> members);
  void follow_feedback(std::uint64_t now_ns, std::uint64_t elapsed_ns,
                       std::span<const MemberInput> members);
  bool at_equal_shares(std::span<const MemberState> members,
                       std::span<const MemberIndex> view) const;

  Settings settings_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<Policy> settler_;  // wrr, for the way to hash's equal shares
  bool settling_ = false;
  FlowletTracker flowlets_;
  HeldMoves holds_;
  std::vector<AimdController> aimd_;
  std::vector<CongestionCounters> previous_;
  std::vector<CongestionInputs> last_inputs_;
  std::vector<std::optional<std::uint32_t>> queue_depth_;
  std::vector<QueueHistory> queues_;  // by member
  std::vector<double> member_load_;
  std::vector<std::uint64_t> sent_before_;
  std::vector<DelayEstimate> delays_;  // by member
  std::vector<double> sent_per_ns_;    // by member, last period
  std::vector<std::uint32_t> last_weights_;
  std::uint64_t last_step_ns_ = 0;
  std::uint64_t periods_ = 0;
  std::uint64_t weight_changes_ = 0;
  std::deque<WeightChange> history_;
};

}  // namespace braid::sched
