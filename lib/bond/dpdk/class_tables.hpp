// A bond's distribution tables (doc/bond.md): one table of buckets per traffic class (a bond
// without classes has one), each built from its members' weights (what the members' service
// leaves them, times the class's scheduler weights), kept where they are when nothing moves
// them (a failed member gets its very buckets back, bucket_assignment.hpp), and published to
// the workers through RCU (TablePublisher). The scheduler's hooks land here: per-class weights,
// flowlet-managed classes, sprayed classes, and whole assignments moved flowlet by flowlet.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bond/dpdk/bond_counters.hpp"
#include "bond/dpdk/bond_events.hpp"
#include "bond/dpdk/bond_table.hpp"
#include "bond/dpdk/table_publisher.hpp"
#include "config/config.hpp"

namespace braid::bond {

// What the tables are built from, per member.
struct TablePlan {
  // What the member may carry while it is usable (its service weight, permille), 0 otherwise;
  // in active-backup mode 1 for the active member only.
  std::vector<std::uint32_t> base;
  std::array<bool, kMaxMembers> collecting{};       // frames received on it are accepted
  std::array<std::uint8_t, kMaxMembers> stormed{};  // classes on a priority in a storm there
};

class ClassTables {
 public:
  ClassTables(const config::BondConfig& config, std::size_t members, rte_rcu_qsbr* qsbr,
              BondEventLog& events, BondCounters& counters);

  // Empty tables (before the first rebuild).
  void reset();
  // Builds every class's table from the plan and publishes it when anything changed.
  void rebuild(const TablePlan& plan, std::uint64_t now_ns, const std::string& cause);
  // Publishes `buckets` as class c's table (see Bond::publish_assignment).
  std::optional<std::uint64_t> publish_assignment(std::size_t class_id,
                                                  std::span<const MemberIndex> buckets,
                                                  std::uint64_t now_ns, const std::string& cause);

  // The scheduler's weights of class c by member. set_weights: true (the caller rebuilds);
  // set_weight_targets: true when a member's weight turned 0 or back (the caller rebuilds).
  void set_weights(std::size_t class_id, const std::vector<std::uint32_t>& weights);
  bool set_weight_targets(std::size_t class_id, const std::vector<std::uint32_t>& weights);
  std::uint32_t weight(std::size_t class_id, std::size_t member) const {
    return weights_[class_id][member];
  }
  // Whether some class gives member m a weight (a member no class weighs carries nothing).
  bool weighed(std::size_t member) const;

  bool flowlet_managed(std::size_t class_id) const { return flowlet_managed_[class_id]; }
  void set_flowlet_managed(std::size_t class_id, bool managed);
  const std::atomic<bool>& record_activity() const { return record_activity_; }
  // True when the sprayed classes changed (the caller rebuilds).
  bool set_spray(std::size_t class_id, bool spray);
  bool spray(std::size_t class_id) const { return (spray_classes_ >> class_id & 1) != 0; }

  std::size_t class_count() const { return class_count_; }
  std::uint8_t all_classes() const { return static_cast<std::uint8_t>((1u << class_count_) - 1); }
  // The PFC priority class c rides on, every class's (bit p), and the classes on `priorities`.
  std::uint8_t class_priority(std::size_t class_id) const;
  std::uint8_t pfc_priorities() const;
  std::uint8_t classes_on(std::uint8_t priorities) const;

  const std::vector<MemberIndex>& assignment() const { return buckets_; }
  std::span<const MemberIndex> assignment(std::size_t class_id) const;
  bool class_distributes(std::size_t class_id, std::size_t member) const;

  const TablePublisher& publisher() const { return publisher_; }
  TablePublisher& publisher() { return publisher_; }
  const BondTable* current() const { return publisher_.current(); }
  std::uint64_t last_publish_ns() const { return last_publish_ns_; }

 private:
  std::span<MemberIndex> class_buckets(std::size_t class_id);
  void update_homes(std::size_t class_id);
  // The weights class c's table is built with: its members' scheduler weights scaled by `base`;
  // while none of its members is usable, every member's (the class spills over rather than lose
  // its traffic).
  std::vector<std::uint32_t> class_weights(std::size_t class_id, const TablePlan& plan,
                                           std::uint64_t now_ns);
  // Whether class c's buckets stay off member m for a PFC storm (action move, not every class).
  bool storm_excludes(std::size_t class_id, std::uint8_t stormed) const;
  void publish(std::unique_ptr<BondTable> table, std::uint64_t now_ns, std::uint32_t moved);

  const config::BondConfig* config_;
  std::size_t members_;
  BondEventLog* events_;
  BondCounters* counters_;
  TablePublisher publisher_;
  std::size_t class_count_ = 1;
  // Per class: the members its config names (bit m), the scheduler's weights by member, whether
  // the scheduler moves its buckets flowlet by flowlet, and whether it spills over (as last
  // logged).
  std::array<std::uint16_t, classify::kMaxClasses> masks_{};
  std::array<std::vector<std::uint32_t>, classify::kMaxClasses> weights_{};
  std::array<bool, classify::kMaxClasses> flowlet_managed_{};
  std::uint8_t spray_classes_ = 0;  // BondTable::spray_classes
  std::array<bool, classify::kMaxClasses> spilling_{};
  std::atomic<bool> record_activity_{false};
  std::vector<MemberIndex> buckets_;  // every class's, class-major (BondTable::buckets)
  // Where each bucket belongs while every member is up at full health (update_homes): a member
  // that fails or degrades gets back the very buckets it gave up.
  std::vector<MemberIndex> homes_;
  std::uint64_t last_publish_ns_ = 0;
};

}  // namespace braid::bond
