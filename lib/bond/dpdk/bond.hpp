// A bond on the protocol loop: its members' link state, LACP (in mode lacp), the choice of
// which members distribute and collect, and the tables it publishes to workers. Single-threaded:
// only the protocol loop calls it (poll(), admin changes, snapshots); EAL's interrupt thread only
// flags a link event and wakes the loop.
#pragma once

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bond/dpdk/bond_bfd.hpp"
#include "bond/dpdk/bond_datapath.hpp"
#include "bond/dpdk/bond_lldp.hpp"
#include "bond/dpdk/member_health_sources.hpp"
#include "bond/dpdk/table_publisher.hpp"
#include "common/deadline_lag.hpp"
#include "common/token_bucket.hpp"
#include "common/waker.hpp"
#include "config/config.hpp"
#include "flow/flow_hash.hpp"
#include "health/ethdev_counters.hpp"
#include "health/member_health.hpp"
#include "health/periodic_expectation.hpp"
#include "lacp/lacp_system.hpp"
#include "port/ethdev_port.hpp"
#include "port/kernel_links.hpp"

namespace braid::bond {

struct BondEvent {
  std::uint64_t time_ns;
  std::string text;
};

struct MemberStatus {
  std::string name;
  std::uint16_t port_id = 0;
  bool link_up = false;
  std::uint32_t speed_mbps = 0;
  bool admin_up = true;
  bool collecting = false;
  bool distributing = false;
  std::uint32_t weight = 1;   // its scheduler weight in the first class's table
  std::uint32_t buckets = 0;  // over every class's table
  // The RX queue its Slow Protocols frames are steered to; none: workers divert them (ring).
  std::optional<std::uint16_t> slow_rx_queue;
  // Where its link state comes from: "interrupt" (the PMD's link-status interrupt), "kernel"
  // (netlink, for net_af_packet) or "poll" (every link_poll_us).
  const char* link_source = "poll";
  std::uint64_t slow_policed = 0;      // Slow Protocols frames over its rate limit, dropped
  std::uint64_t slow_unsupported = 0;  // ... of a subtype braid does not run, dropped
  // Its health (lib/health): the state, why, and the weight it leaves the member (permille).
  health::State health = health::State::kDown;
  std::string health_reason{};
  std::uint32_t health_weight_permille = 0;
};

struct BondCounters {
  std::uint64_t tables_published = 0;
  std::uint64_t buckets_moved = 0;
  std::uint64_t link_changes = 0;
  std::uint64_t slow_rx_steered = 0;      // Slow Protocols frames read from members' slow queues
  std::uint64_t slow_rx_diverted = 0;     // ... taken from the ring the workers divert them to
  std::uint64_t slow_frames_ignored = 0;  // LACPDUs seen in static / active-backup mode
  // Dropped: frames on a slow queue that are not Slow Protocols (a NIC that mis-steers). The
  // control thread cannot forward them (it owns no worker's TX queue).
  std::uint64_t slow_queue_misdirected = 0;
  // Dropped: Slow Protocols frames over a member's rate limit (slow_policer.hpp), on the
  // protocol loop. Workers police before the ring as well (drop reason slow_policed).
  std::uint64_t slow_policed = 0;
  // Dropped: Slow Protocols frames of a subtype other than LACP and Marker (OAM, ESMC) that
  // reached the protocol loop (from a steered queue; workers drop them as slow_unsupported).
  std::uint64_t slow_unsupported = 0;
  // Polls that left frames on the ring for the next one (their budget ran out: a flood).
  std::uint64_t slow_ring_budget_hits = 0;
  std::uint64_t control_tx = 0;         // LACPDUs, marker responses, BFD packets, LLDPDUs sent
  std::uint64_t control_tx_failed = 0;  // ... that the member's control TX queue refused
  std::uint64_t control_no_mbuf = 0;    // ... for which the control pool had no mbuf
  std::uint64_t goodbye_tx = 0;         // out-of-sync LACPDUs as members left service
  std::uint64_t lldp_rx = 0;            // LLDPDUs from the ring or a slow queue (bond_lldp.hpp)
};

// What a bond needs from the engine.
struct BondContext {
  std::uint16_t control_tx_queue = 0;  // reserved on every member for this bond's LACPDUs
  rte_mempool* control_pool = nullptr;
  rte_rcu_qsbr* qsbr = nullptr;
  drivers::KernelLinks* kernel_links = nullptr;  // link state of members on kernel interfaces
  const Waker* waker = nullptr;                  // link interrupts wake the protocol loop
  DeadlineLag* lag = nullptr;                    // lateness of link polls and LACP timers
  std::uint32_t number = 1;  // the bond's place in the config, from 1 (LLDP's aggregated port id)
};

class Bond {
 public:
  // `members` are the member ports in config order.
  Bond(const config::BondConfig& config, std::vector<drivers::EthdevPort*> members,
       const BondContext& context);
  ~Bond();
  Bond(const Bond&) = delete;
  Bond& operator=(const Bond&) = delete;

  // After the members are configured, before they start: bond MAC on every member.
  void prepare_members();
  // Once, after the members started for the first time and before the workers are placed:
  // steer each member's Slow Protocols frames to its slow queue (slow_steering auto|on). A
  // member whose NIC refuses keeps them on the workers' ring and hands the queue to the workers
  // (auto), or this throws, naming the member, its driver and the PMD's reason (on).
  void set_up_slow_paths(std::uint64_t now_ns);
  // After the members started: allmulti (01-80-C2-00-00-02 must reach us), first link poll,
  // LACP machines, first table.
  void start(std::uint64_t now_ns);
  // Everything periodic: link polling, Slow Protocols frames (each source drained with a
  // budget), LACP timers, table rebuilds. Returns the time at which it next has work.
  std::uint64_t poll(std::uint64_t now_ns);
  // A member's kernel interface changed (the protocol loop read KernelLinks): links are read
  // at the next poll.
  void notify_link_event() { link_event_.store(true, std::memory_order_release); }

  // Admin up/down of a member (console `set member`): takes effect at once. Down says goodbye
  // to the LACP partner first (an out-of-sync LACPDU), so it stops sending to the member.
  void set_member_admin(std::size_t member, bool up, std::uint64_t now_ns);
  // braid stops (workers parked, ports still started): says goodbye to the LACP partner on
  // every member, retrying a refused frame for up to `patience_ns`, then takes member links
  // down where the config asks (link_down_on_stop) and the PMD can. Returns goodbyes sent.
  std::size_t leave_service(std::uint64_t now_ns, std::uint64_t patience_ns);
  // LACP rate at run time (console `set bond <b> lacp rate fast|slow`); false if not mode lacp.
  bool set_lacp_rate(bool fast, std::uint64_t now_ns);
  // A member's BFD session as the BFD core reports it (lib/bfd): every bond passes
  // kNotConfigured until BFD runs on it. A kDown takes the member down (after down_delay).
  void set_bfd_status(std::size_t member, health::BfdStatus status, std::uint64_t now_ns);
  // The PFC storm watchdog's verdict on a member (scheduler.pfc_watchdog, run by the bond's
  // scheduler): the priorities in a storm there (bit p). The classes on them lose the member:
  // action move, their buckets move off (a storm on every class's priority takes the member down,
  // health pfc_storm); action drop, their packets to it are dropped as pfc_storm.
  void set_pfc_storm(std::size_t member, std::uint8_t priorities, std::uint64_t now_ns);
  // The PFC priority class c rides on: its own (classes.list[].priority) or the bond's
  // (scheduler.congestion.priority).
  std::uint8_t class_priority(std::size_t class_id) const;
  // The PFC priorities the bond's classes ride on (bit p; a bond without classes: its own).
  std::uint8_t pfc_priorities() const;
  // The classes on a priority in a storm on member m (bit c), and those priorities (bit p).
  std::uint8_t stormed_classes(std::size_t member) const;
  std::uint8_t storm_priorities(std::size_t member) const {
    return members_.at(member).storm_priorities;
  }
  // Member weights (the scheduler's output) for class `class_id`'s table (a bond without
  // classes has class 0); applied to usable members at once. A member's health scales its
  // weight (degraded: degraded_weight_permille / 1000; down: 0) on top.
  void set_weights(std::size_t class_id, const std::vector<std::uint32_t>& weights,
                   std::uint64_t now_ns);

  // Scheduler hooks (lib/sched/dpdk/bond_scheduler), per traffic class. Weights for the next
  // rebuild's quotas, without moving a bucket now (a member whose weight turns 0 or back does
  // rebuild).
  void set_weight_targets(std::size_t class_id, const std::vector<std::uint32_t>& weights,
                          std::uint64_t now_ns);
  // While set, a rebuild (member change) moves only the class's buckets of members that stopped
  // distributing; everything else moves flowlet by flowlet through publish_assignment. Workers
  // record per-bucket activity while any class is flowlet managed (only flowlets need it).
  bool flowlet_managed(std::size_t class_id) const { return flowlet_managed_[class_id]; }
  void set_flowlet_managed(std::size_t class_id, bool managed);
  bool records_activity() const { return record_activity_.load(std::memory_order_relaxed); }
  // Class c under the spray policy: its packets go round robin over its table, per packet
  // (BondTable::spray_classes); published at once.
  void set_spray(std::size_t class_id, bool spray, std::uint64_t now_ns);
  bool spray(std::size_t class_id) const { return (spray_classes_ >> class_id & 1) != 0; }
  // Publishes `buckets` as class `class_id`'s table (bonds[].buckets of them) through the same
  // RCU path as rebuilds. Refused (nullopt) when a bucket names a member the class does not
  // distribute on in the current table; a bucket may be kHeldBucket (workers hold its packets
  // until a later table names its member). Returns the generation now current (unchanged when
  // nothing moved).
  std::optional<std::uint64_t> publish_assignment(std::size_t class_id,
                                                  std::span<const MemberIndex> buckets,
                                                  std::uint64_t now_ns, const std::string& cause);
  // Every class's buckets as last published, class-major (a bond without classes: its table).
  const std::vector<MemberIndex>& assignment() const { return buckets_; }
  // Class `class_id`'s buckets as last published.
  std::span<const MemberIndex> assignment(std::size_t class_id) const;
  // How many tables the bond has: one per traffic class, or 1 without classes.
  std::size_t class_count() const { return class_count_; }
  // Whether class c's table may name member m now.
  bool class_distributes(std::size_t class_id, std::size_t member) const;
  // Worker w's own per-slot activity array, every class's buckets (created on first request,
  // before workers start).
  BucketActivityArray* activity_for_worker(std::size_t worker);
  // Worker w's per-class counts (created on first request, before workers start); nullptr when
  // the bond has no traffic classes.
  ClassHits* class_hits_for_worker(std::size_t worker);
  // The bond's classifier (nullptr: no classes) and each class's packets, summed over workers.
  const classify::Classifier* classifier() const { return classifier_.get(); }
  std::array<std::uint64_t, classify::kMaxClasses> class_packets() const;
  // Packets braid marked CE (classes.list[].ecn), by class and member, summed over workers; and
  // by class those chosen but not ECT (left alone).
  ClassMemberCounts class_ecn_marked() const;
  std::array<std::uint64_t, classify::kMaxClasses> class_ecn_not_ect() const;
  // Dropped over each class's rate cap, and by class and member given way to a reserved share.
  std::array<std::uint64_t, classify::kMaxClasses> class_rate_capped() const;
  ClassMemberCounts class_gave_way() const;
  // By class and member, what the workers handed each member (counted while some class reserves
  // a share or the PFC watchdog runs).
  ClassMemberCounts class_offered() const;
  // By class and member, dropped for a PFC storm on the class's priority (action drop).
  ClassMemberCounts class_storm_dropped() const;
  // What each class may send on each member now, packets a second over all workers
  // (kNoShareLimit: no limit; the bond's scheduler sets them on a short member).
  ClassMemberCounts class_share_limits() const;
  // Every worker's ClassHits (by worker index; an entry may be null): the scheduler reads what
  // each offered and writes each one's limits.
  const std::vector<std::unique_ptr<ClassHits>>& class_hits() const { return class_hits_; }
  // The member's queue depth in packets as the scheduler read it (control thread, every
  // period): what the workers' ECN marking judges by.
  void set_queue_depth(std::size_t member, std::uint32_t packets) {
    queue_depth_[member].store(packets, std::memory_order_relaxed);
  }
  const std::vector<std::unique_ptr<BucketActivityArray>>& activity() const { return activity_; }

  const std::string& name() const { return config_.name; }
  const config::BondConfig& config() const { return config_; }
  const BondShared& shared() const { return shared_; }
  std::size_t member_count() const { return members_.size(); }
  // Whether a member may carry traffic: link up, admin up, a non-zero weight in some class and
  // (mode lacp) LACP distributing. The bond distributes only while min_links members are usable.
  bool usable(std::size_t member) const;
  std::vector<MemberStatus> members() const;
  // Member m's health model as of now_ns (show health, metrics).
  health::HealthView health_view(std::size_t member, std::uint64_t now_ns) const;
  const health::HealthSettings& health_settings() const { return config_.health.settings; }
  const BondCounters& counters() const { return counters_; }
  const std::deque<BondEvent>& events() const { return events_; }
  const lacp::LacpSystem* lacp() const { return lacp_.get(); }
  // Its BFD sessions (bonds[].bfd; nullptr when off or before start). `set bfd` changes them.
  BondBfd* bfd() { return bfd_.get(); }
  const BondBfd* bfd() const { return bfd_.get(); }
  // Its members' LLDP agents and cabling check (bond_lldp.hpp); nullptr with lldp off.
  const BondLldp* lldp() const { return lldp_.get(); }
  const BondTable* table() const { return publisher_.current(); }
  const rte_ether_addr& mac() const { return mac_; }
  // Monotonic time of the last table publication (for failover measurement).
  std::uint64_t last_publish_ns() const { return last_publish_ns_; }

 private:
  struct Member {
    drivers::EthdevPort* port = nullptr;
    rte_ether_addr own_mac{};  // the port's own address: source of its LACPDUs
    bool link_up = false;
    std::uint32_t speed_mbps = 0;
    bool full_duplex = true;
    bool admin_up = true;
    std::optional<std::uint16_t> slow_queue{};  // steered: the control thread polls it
    SlowPolicer slow_policer{1'000'000'000};
    std::uint64_t slow_policed = 0;
    std::uint64_t slow_unsupported = 0;
    std::optional<lacp::SlowFrame> goodbye;  // refused by the port: sent again at the next poll
    std::uint64_t rx_packets_seen = 0;       // the port's ipackets at the last neighbour check
    lacp::FallbackState fallback = lacp::FallbackState::kOff;  // as last logged
    health::BfdStatus bfd = health::BfdStatus::kNotConfigured;
    std::uint8_t storm_priorities = 0;  // set_pfc_storm
    std::unique_ptr<health::MemberHealth> health;
    health::PeriodicExpectation lacpdus;                  // the lacpdu_missed signal (mode lacp)
    health::PeriodicExpectation bfd_packets;              // the bfd_missed signal (bonds[].bfd)
    std::unique_ptr<MemberHealthSources> health_sources;  // mlx5, RoCE: over the ethdev's
  };

  void poll_links(std::uint64_t now_ns);
  void update_bucket_homes(std::size_t class_id);
  std::span<MemberIndex> class_buckets(std::size_t class_id);
  // The weights class c's table is built with: its members' scheduler weights scaled by `base`
  // (usable members' health, 0 for the rest); while none of its members is usable, every
  // member's (the class spills over rather than lose its traffic).
  std::uint8_t all_classes() const { return static_cast<std::uint8_t>((1u << class_count_) - 1); }
  // Whether class c's buckets stay off member m for a PFC storm (action move, not every class).
  bool storm_excludes(std::size_t class_id, std::size_t member) const;
  std::vector<std::uint32_t> class_weights(std::size_t class_id,
                                           const std::vector<std::uint32_t>& base,
                                           std::uint64_t now_ns);
  void poll_slow_queues(std::uint64_t now_ns);
  // True when the budget ran out with frames left on the ring.
  bool drain_slow_ring(std::uint64_t now_ns);
  void on_slow_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns);
  // An LLDPDU from either path (bond_lldp_path.cpp); returns false when it is not one.
  bool on_lldp_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns);
  void create_lldp();
  // The agents' view of the bond (links, aggregation, LACP partners), then their deadlines.
  std::uint64_t run_lldp(std::uint64_t now_ns);
  bool send_control_frame(std::size_t member, ByteSpan frame);
  rte_mbuf* control_mbuf();
  // Goodbye to the partner on `member` as it leaves service (LacpSystem::goodbye_frame).
  void say_goodbye(std::size_t member, std::uint64_t now_ns);
  void send_pending_goodbyes(std::uint64_t now_ns);
  void run_lacp(std::uint64_t now_ns);
  // bonds[].bfd: the sessions, their frames to the control queue, their state to health.
  void start_bfd(std::uint64_t now_ns);
  void observe_neighbours(std::uint64_t now_ns);
  void log_fallback_changes(std::uint64_t now_ns);
  void note_lateness(DeadlineKind kind, std::uint64_t deadline_ns, std::uint64_t now_ns);
  void rebuild(std::uint64_t now_ns, const std::string& cause);
  // Member m's health with what the bond knows now (and a counter sample on a sampling tick);
  // true when the weight it leaves the member changed (the caller rebuilds).
  bool update_health(std::size_t member, std::uint64_t now_ns,
                     std::optional<health::CounterSnapshot> counters = std::nullopt);
  // Every member's health; rebuilds when a weight changed.
  void update_all_health(std::uint64_t now_ns, bool sample, const std::string& cause);
  // The sampling tick and the members' deadlines (delays and suppressions ending).
  void run_health(std::uint64_t now_ns);
  std::uint64_t next_health_deadline_ns() const;
  health::CounterSnapshot read_health_counters(std::size_t member) const;
  // LACPDUs the member's partner owed and sent up to now (periodic_expectation.hpp).
  health::CounterSample lacpdu_sample(std::size_t member, std::uint64_t now_ns);
  // BFD Control packets the member's peer owed (while Up) and sent up to now.
  health::CounterSample bfd_sample(std::size_t member, std::uint64_t now_ns);
  std::uint32_t health_permille(std::size_t member) const;
  void log(std::uint64_t now_ns, std::string text);
  static int on_link_interrupt(std::uint16_t port_id, rte_eth_event_type event, void* bond,
                               void* unused);

  config::BondConfig config_;
  std::vector<Member> members_;
  BondContext context_;
  rte_ether_addr mac_{};
  flow::FlowHasher hasher_;
  TablePublisher publisher_;
  rte_ring* slow_ring_ = nullptr;
  BondShared shared_;
  std::unique_ptr<lacp::LacpSystem> lacp_;
  std::unique_ptr<BondBfd> bfd_;
  std::array<std::atomic<std::uint64_t>, kMaxMembers> bfd_local_macs_{};    // BondShared
  std::array<std::atomic<std::uint64_t>, kMaxMembers> bfd_peer_sources_{};  // BondShared
  std::unique_ptr<BondLldp> lldp_;
  std::uint64_t lacp_generation_ = 0;
  std::optional<std::size_t> active_backup_member_;
  std::vector<MemberIndex> buckets_;  // every class's, class-major (BondTable::buckets)
  // Where each bucket belongs while every member is up at full health (update_homes): a member
  // that fails or degrades gets back the very buckets it gave up.
  std::vector<MemberIndex> homes_;
  std::uint64_t next_link_poll_ns_ = 0;
  std::uint64_t next_neighbour_check_ns_ = 0;
  std::uint64_t next_health_sample_ns_ = 0;
  health::XstatNames health_xstats_;
  std::uint64_t last_late_warning_ns_ = 0;
  std::uint64_t late_warnings_suppressed_ = 0;
  std::atomic<bool> link_event_{false};
  std::vector<bool> lsc_registered_;
  std::uint64_t last_publish_ns_ = 0;
  BondCounters counters_;
  std::deque<BondEvent> events_;
  std::size_t class_count_ = 1;
  // Per class: the members its config names (bit m), the scheduler's weights by member, whether
  // the scheduler moves its buckets flowlet by flowlet, and whether it spills over (as last
  // logged).
  std::array<std::uint16_t, classify::kMaxClasses> class_masks_{};
  std::array<std::vector<std::uint32_t>, classify::kMaxClasses> class_weights_{};
  std::array<bool, classify::kMaxClasses> flowlet_managed_{};
  std::uint8_t spray_classes_ = 0;  // BondTable::spray_classes
  std::array<bool, classify::kMaxClasses> spilling_{};
  std::atomic<bool> record_activity_{false};
  // Per member, its partner's source address for the workers' policers (BondShared).
  std::array<std::atomic<std::uint64_t>, kMaxMembers> partner_sources_{};
  std::vector<std::unique_ptr<BucketActivityArray>> activity_;
  std::unique_ptr<classify::Classifier> classifier_;
  std::vector<std::unique_ptr<ClassHits>> class_hits_;
  std::array<std::atomic<std::uint32_t>, kMaxMembers> queue_depth_{};
};

}  // namespace braid::bond
