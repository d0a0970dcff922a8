// A bond's scheduler bound to DPDK, on the control thread: every period it reads the workers'
// bucket activity arrays, the members' queue depths and congestion counters, runs the pure
// scheduler (lib/sched) and applies the result through the bond's hooks (weights for quotas,
// flowlet moves published over RCU). Each traffic class has a pure scheduler of its own over its
// own table, with its own policy (classes.list[].policy, or the bond's) and the members its
// table may use; the members' queues and counters are read once for all. Every weight change is
// logged with its cause and kept in the scheduler's bounded history for the console.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "bond/dpdk/bond.hpp"
#include "common/deadline_lag.hpp"
#include "congestion/source.hpp"
#include "health/pfc_storm.hpp"
#include "sched/activity_counts.hpp"
#include "sched/dpdk/class_policing.hpp"
#include "sched/scheduler.hpp"

namespace braid::sched {

// A member's transmit queue as the workers see it (the engine wires the workers' TX queue probes
// and any link emulator, lib/engine/tx_queue_probe.hpp): its depth in packets when something can
// tell, and until when it counts (MemberInput::counted_ns, monotonic ns).
struct MemberQueue {
  std::optional<std::uint32_t> packets;
  std::uint64_t counted_ns = 0;
  // The oldest table generation any worker distributed on when it measured (MemberInput).
  std::uint64_t acked_generation = kAckedAll;
};
using QueueDepthFn = std::function<MemberQueue(std::size_t member)>;

Settings settings_from_config(const config::SchedulerConfig& config, std::size_t members);

class BondScheduler {
 public:
  // `source` may be null (no congestion feedback).
  BondScheduler(bond::Bond& bond, Settings settings, std::unique_ptr<congestion::Source> source);

  // Applies the configured policies to the bond (wrr weights as the first table's quotas).
  void start(std::uint64_t now_ns);
  // Runs a period when one is due, and ends holds that are due between periods (held moves,
  // lib/sched/held_moves.hpp); returns when it next has work.
  std::uint64_t poll(std::uint64_t now_ns);

  // Console: `set bond <b> policy|weight|flowlet gap`. False with `error` set on a bad value.
  // The policy applies to every class whose config names none (own_policy(c) false).
  bool set_policy(const std::string& name, std::uint64_t now_ns, std::string& error);
  // `set bond <b> class <c> policy`: class c's own policy from now on (own_policy(c) true).
  bool set_class_policy(const std::string& class_name, const std::string& policy,
                        std::uint64_t now_ns, std::string& error);
  bool set_weight(std::size_t member, std::uint32_t weight, std::uint64_t now_ns,
                  std::string& error);
  void set_flowlet_gap_us(std::uint32_t gap_us);
  void set_queue_depth(QueueDepthFn fn) { queue_depth_ = std::move(fn); }
  // Where the lateness of its periods is recorded (the protocol loop's DeadlineLag).
  void set_lag(DeadlineLag* lag) { lag_ = lag; }

  // The first class's (a bond without classes has one), or class c's.
  Snapshot snapshot(std::size_t class_id = 0) const {
    return lanes_[class_id].scheduler.snapshot();
  }
  const Scheduler& scheduler(std::size_t class_id = 0) const { return lanes_[class_id].scheduler; }
  std::size_t class_count() const { return lanes_.size(); }
  // The bond's policy: scheduler.policy or the last `set bond <b> policy`.
  PolicyKind policy() const { return policy_; }
  // Whether class c's config names its policy (`set bond <b> policy` leaves it alone).
  bool own_policy(std::size_t class_id) const { return lanes_[class_id].own_policy; }
  // The PFC priority class c rides on (classes.list[].priority, or scheduler.congestion.priority):
  // only pauses on it reach its scheduler.
  std::uint8_t class_priority(std::size_t class_id) const { return lanes_[class_id].priority; }
  // What reading the congestion source cost the control thread in one period, all members
  // together (mlx5: one ethtool statistics query per member, which the NIC's firmware answers).
  std::uint64_t counters_read_ns() const { return counters_read_ns_; }
  std::uint64_t counters_read_max_ns() const { return counters_read_max_ns_; }
  congestion::Source* source() { return source_.get(); }
  // Reserved shares and rate caps (null: no class has either).
  const ClassPolicing* policing() const { return policing_.get(); }

 private:
  // One class's scheduler and what it reads.
  struct Lane {
    Lane(Settings settings, std::size_t members, std::uint32_t buckets, bool own,
         std::uint8_t pfc_priority);
    Scheduler scheduler;
    std::vector<BucketActivity> activity;
    ActivityCounts counts;
    std::vector<MemberInput> inputs;  // the bond's, with the members this class may use
    std::size_t history_logged = 0;
    std::uint64_t recording_since_ns = 0;  // when workers last started recording for it
    bool hash_pending = false;  // switched to hash; applied once the moves in progress complete
    bool own_policy = false;
    std::uint8_t priority = 3;  // its PFC priority: its inputs carry that priority's pauses
  };

  void apply_policy(std::size_t class_id, std::uint64_t now_ns);
  // Class c's scheduler to `kind`, then applied to the bond.
  void switch_policy(std::size_t class_id, PolicyKind kind, std::uint64_t now_ns);
  void finish_pending_hash(std::size_t class_id, std::uint64_t now_ns);
  void gather_activity(std::size_t class_id, std::uint64_t now_ns);
  void gather_inputs(std::uint64_t now_ns);
  void period(std::size_t class_id, std::uint64_t now_ns);
  void release(std::size_t class_id, std::uint64_t now_ns);
  void log_weight_changes(std::size_t class_id);
  void note_counters_read(std::uint64_t reading_ns);
  // scheduler.pfc_watchdog: per member and PFC priority in use, that priority's pauses and
  // packets sent this period to its watchdog; a storm takes the member from the classes on the
  // priority (Bond::set_pfc_storm) until the pauses stop.
  void watch_storms(std::uint64_t now_ns);
  void log_storm(std::size_t member, const health::PfcStormEvent& event) const;
  bool has_waiting(std::size_t member, std::uint8_t priority,
                   const bond::ClassMemberCounts& offered);
  std::uint64_t next_wakeup_ns() const;

  bond::Bond& bond_;
  std::vector<Lane> lanes_;
  std::unique_ptr<congestion::Source> source_;
  QueueDepthFn queue_depth_;
  DeadlineLag* lag_ = nullptr;
  std::vector<MemberInput> inputs_;
  std::vector<health::PfcStormWatchdog> watchdogs_;  // by member; empty: no watchdog
  // By member and priority, what the priority's classes had handed the member at the last period.
  std::vector<std::array<std::uint64_t, kPfcPriorities>> handed_;
  std::unique_ptr<ClassPolicing> policing_;
  std::uint8_t bond_priority_ = 3;  // scheduler.congestion.priority: the counters' pause fields
  PolicyKind policy_ = PolicyKind::kHash;
  std::uint64_t period_ns_ = 0;
  std::uint64_t next_ns_ = 0;
  std::uint64_t counters_read_ns_ = 0;
  std::uint64_t counters_read_max_ns_ = 0;
  bool slow_read_logged_ = false;
};

}  // namespace braid::sched
