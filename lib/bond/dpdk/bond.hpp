// A bond on the protocol loop: what its members are and what each may carry, composed of one
// part per concept —
//   MemberService      per member, what it carries and what the partner is told (both ends)
//   MemberLinks        the members' link state (interrupt, kernel netlink or poll)
//   BondLacp           LACP (mode lacp): the 802.1AX machines, fallback's evidence, goodbyes
//   BondHealth         each member's health (lib/health): carrier, BFD, storms, error rates
//   BondBfd, BondLldp  BFD sessions and LLDP agents on the members (optional)
//   ClassTables        the distribution tables, one per traffic class, published to workers
//   WorkerClassCounts  what the workers count per class, summed
//   ControlSender      the bond's own frames onto the members' control queues
//   BondEventLog       the bond's events (show bond)
// and the Slow Protocols path that feeds them (bond_slow_path.cpp). Single-threaded: only the
// protocol loop calls it (poll(), admin changes, snapshots); EAL's interrupt thread only flags a
// link event and wakes the loop.
#pragma once

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bond/dpdk/bond_bfd.hpp"
#include "bond/dpdk/bond_counters.hpp"
#include "bond/dpdk/bond_datapath.hpp"
#include "bond/dpdk/bond_events.hpp"
#include "bond/dpdk/bond_health.hpp"
#include "bond/dpdk/bond_lacp.hpp"
#include "bond/dpdk/bond_lldp.hpp"
#include "bond/dpdk/class_tables.hpp"
#include "bond/dpdk/control_sender.hpp"
#include "bond/dpdk/late_deadlines.hpp"
#include "bond/dpdk/member_links.hpp"
#include "bond/dpdk/worker_class_counts.hpp"
#include "bond/member_service.hpp"
#include "common/deadline_lag.hpp"
#include "common/slow_reads.hpp"
#include "common/waker.hpp"
#include "config/config.hpp"
#include "flow/flow_hash.hpp"
#include "health/member_health.hpp"
#include "lacp/lacp_system.hpp"
#include "lacp/resume_file.hpp"
#include "port/ethdev_port.hpp"
#include "port/kernel_links.hpp"

namespace braid::bond {

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
  // Its service state both ways (member_service.hpp): what braid sends on it and why, whether
  // the partner is told to stop sending (partner_told false: a static bond cannot tell it), and
  // since when; how the last withdrawal ended on the partner's side and after how long.
  ServiceVerdict service{};
  std::uint64_t tx_since_ns = 0;
  std::uint64_t partner_since_ns = 0;
  bool partner_told = false;
  Release release = Release::kNone;
  Release last_release = Release::kNone;
  std::optional<std::uint64_t> last_release_wait_ns{};
};

// What a bond needs from the engine.
struct BondContext {
  std::uint16_t control_tx_queue = 0;  // reserved on every member for this bond's LACPDUs
  rte_mempool* control_pool = nullptr;
  rte_rcu_qsbr* qsbr = nullptr;
  drivers::KernelLinks* kernel_links = nullptr;  // link state of members on kernel interfaces
  const Waker* waker = nullptr;                  // link interrupts wake the protocol loop
  SlowReads* slow_reads = nullptr;  // reads the members' counters (none: on the protocol loop)
  DeadlineLag* lag = nullptr;       // lateness of link polls and LACP timers
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
  void notify_link_event() { links_.notify_event(); }

  // Admin up/down of a member (console `set member`). Down drains it: braid's traffic leaves it
  // at once and the partner is told to stop sending (a withdrawal, member_service.hpp); it keeps
  // collecting until the partner's LACPDU says it stopped (or lacp.withdraw.patience_ms), then
  // its LACP port is disabled. A static bond's member goes down at once.
  void set_member_admin(std::size_t member, bool up, std::uint64_t now_ns);
  // braid stops, step one (workers still forwarding): every member withdrawn from its partner,
  // collecting until each partner stopped sending. left() once every member has settled (each
  // partner acknowledged, or its patience ran out, or its link is down); the protocol loop keeps
  // polling the bond meanwhile.
  void begin_leave(std::uint64_t now_ns);
  bool left() const;
  // One line per member on how its partner took the leave ("m0 acknowledged in 12.3 ms").
  std::string leave_report() const;
  // braid stops, step two (workers parked, ports still started): says goodbye to the LACP
  // partner on every member that still claims to be in sync, retrying a refused frame for up to
  // `patience_ns`, then takes member links down where the config asks (link_down_on_stop) and
  // the PMD can. Returns goodbyes sent.
  std::size_t leave_service(std::uint64_t now_ns, std::uint64_t patience_ns);
  // LACP rate at run time (console `set bond <b> lacp rate fast|slow`); false if not mode lacp.
  bool set_lacp_rate(bool fast, std::uint64_t now_ns);
  // A member's BFD session as the BFD core reports it (lib/bfd): every bond passes
  // kNotConfigured until BFD runs on it. A kDown takes the member down (after down_delay).
  void set_bfd_status(std::size_t member, health::BfdStatus status, std::uint64_t now_ns);
  // LACP-preserving restart (lacp/resume.hpp, doc/lacp.md). arm_resume(): before start(), the
  // members the previous process saved (matched by name); start() arms their LACP ports, which
  // go straight back into service at link up, and the bond logs what came of each.
  // restart_points(): a LACPDU at once on every member (the partner's timeout starts again),
  // then each member in service with its resume point, for the file the next process reads.
  void arm_resume(lacp::SavedBond saved);
  lacp::SavedBond restart_points(std::uint64_t now_ns);
  // The PFC storm watchdog's verdict on a member (scheduler.pfc_watchdog, run by the bond's
  // scheduler): the priorities in a storm there (bit p). The classes on them lose the member:
  // action move, their buckets move off (a storm on every class's priority takes the member down,
  // health pfc_storm); action drop, their packets to it are dropped as pfc_storm.
  void set_pfc_storm(std::size_t member, std::uint8_t priorities, std::uint64_t now_ns);
  // The PFC priority class c rides on: its own (classes.list[].priority) or the bond's
  // (scheduler.congestion.priority).
  std::uint8_t class_priority(std::size_t class_id) const {
    return tables_.class_priority(class_id);
  }
  // The PFC priorities the bond's classes ride on (bit p; a bond without classes: its own).
  std::uint8_t pfc_priorities() const { return tables_.pfc_priorities(); }
  // The classes on a priority in a storm on member m (bit c), and those priorities (bit p).
  std::uint8_t stormed_classes(std::size_t member) const {
    return tables_.classes_on(storm_priorities(member));
  }
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
  bool flowlet_managed(std::size_t class_id) const { return tables_.flowlet_managed(class_id); }
  void set_flowlet_managed(std::size_t class_id, bool managed) {
    tables_.set_flowlet_managed(class_id, managed);
  }
  bool records_activity() const {
    return tables_.record_activity().load(std::memory_order_relaxed);
  }
  // Class c under the spray policy: its packets go round robin over its table, per packet
  // (BondTable::spray_classes); published at once.
  void set_spray(std::size_t class_id, bool spray, std::uint64_t now_ns);
  bool spray(std::size_t class_id) const { return tables_.spray(class_id); }
  // Publishes `buckets` as class `class_id`'s table (bonds[].buckets of them) through the same
  // RCU path as rebuilds. Refused (nullopt) when a bucket names a member the class does not
  // distribute on in the current table; a bucket may be kHeldBucket (workers hold its packets
  // until a later table names its member). Returns the generation now current (unchanged when
  // nothing moved).
  std::optional<std::uint64_t> publish_assignment(std::size_t class_id,
                                                  std::span<const MemberIndex> buckets,
                                                  std::uint64_t now_ns, const std::string& cause) {
    return tables_.publish_assignment(class_id, buckets, now_ns, cause);
  }
  // Every class's buckets as last published, class-major (a bond without classes: its table).
  const std::vector<MemberIndex>& assignment() const { return tables_.assignment(); }
  // Class `class_id`'s buckets as last published.
  std::span<const MemberIndex> assignment(std::size_t class_id) const {
    return tables_.assignment(class_id);
  }
  // How many tables the bond has: one per traffic class, or 1 without classes.
  std::size_t class_count() const { return tables_.class_count(); }
  // Whether class c's table may name member m now.
  bool class_distributes(std::size_t class_id, std::size_t member) const {
    return tables_.class_distributes(class_id, member);
  }
  // Worker w's own per-slot activity array, every class's buckets, and its per-class counts
  // (nullptr when the bond has no traffic classes); created on first request, before workers
  // start.
  BucketActivityArray* activity_for_worker(std::size_t worker) {
    return worker_counts_.activity_for_worker(worker);
  }
  ClassHits* class_hits_for_worker(std::size_t worker) {
    return worker_counts_.class_hits_for_worker(worker);
  }
  // The bond's classifier (nullptr: no classes) and what the workers counted per class (and
  // member), summed over them (worker_class_counts.hpp).
  const classify::Classifier* classifier() const { return classifier_.get(); }
  ClassCounts class_packets() const { return worker_counts_.packets(); }
  ClassMemberCounts class_ecn_marked() const { return worker_counts_.ecn_marked(); }
  ClassCounts class_ecn_not_ect() const { return worker_counts_.ecn_not_ect(); }
  ClassCounts class_rate_capped() const { return worker_counts_.rate_capped(); }
  ClassMemberCounts class_gave_way() const { return worker_counts_.gave_way(); }
  ClassMemberCounts class_offered() const { return worker_counts_.offered(); }
  ClassMemberCounts class_storm_dropped() const { return worker_counts_.storm_dropped(); }
  ClassMemberCounts class_share_limits() const { return worker_counts_.share_limits(); }
  // Every worker's ClassHits (by worker index; an entry may be null): the scheduler reads what
  // each offered and writes each one's limits.
  const std::vector<std::unique_ptr<ClassHits>>& class_hits() const {
    return worker_counts_.class_hits();
  }
  const std::vector<std::unique_ptr<BucketActivityArray>>& activity() const {
    return worker_counts_.activity();
  }

  const std::string& name() const { return config_.name; }
  const config::BondConfig& config() const { return config_; }
  const BondShared& shared() const { return shared_; }
  std::size_t member_count() const { return members_.size(); }
  // Whether a member may carry traffic: its service gives it a transmit weight (link, admin,
  // health, LACP distributing, not withdrawn) and some class weighs it. The bond distributes
  // only while min_links members are usable.
  bool usable(std::size_t member) const;
  const MemberService& service(std::size_t member) const { return services_.at(member); }
  std::vector<MemberStatus> members() const;
  // Member m's health model as of now_ns (show health, metrics).
  health::HealthView health_view(std::size_t member, std::uint64_t now_ns) const {
    return health_.view(member, now_ns);
  }
  const health::HealthSettings& health_settings() const { return config_.health.settings; }
  const BondCounters& counters() const { return counters_; }
  const std::deque<BondEvent>& events() const { return events_.events(); }
  // Its LACP machines (mode lacp; nullptr otherwise or before start).
  const lacp::LacpSystem* lacp() const;
  // Its BFD sessions (bonds[].bfd; nullptr when off or before start). `set bfd` changes them.
  BondBfd* bfd() { return bfd_.get(); }
  const BondBfd* bfd() const { return bfd_.get(); }
  // Its members' LLDP agents and cabling check (bond_lldp.hpp); nullptr with lldp off.
  const BondLldp* lldp() const { return lldp_.get(); }
  const BondTable* table() const { return tables_.current(); }
  const rte_ether_addr& mac() const { return mac_; }
  // Monotonic time of the last table publication (for failover measurement).
  std::uint64_t last_publish_ns() const { return tables_.last_publish_ns(); }

 private:
  struct Member {
    drivers::EthdevPort* port = nullptr;
    rte_ether_addr own_mac{};  // the port's own address: source of its LACPDUs
    bool admin_up = true;
    std::optional<std::uint16_t> slow_queue{};  // steered: the control thread polls it
    SlowPolicer slow_policer{1'000'000'000};
    std::uint64_t slow_policed = 0;
    std::uint64_t slow_unsupported = 0;
    std::uint8_t storm_priorities = 0;  // set_pfc_storm
    bool drained = false;  // admin down and the drain finished: its LACP port is disabled
  };

  void on_link_changes(const std::vector<std::size_t>& changed, std::uint64_t now_ns);
  // Restart (bond_restart.cpp): arms the LACP ports start() just built; logs outcomes as they
  // come (start(), then poll() while any member waits for its link).
  void apply_resume(std::uint64_t now_ns);
  void log_resume_outcomes(std::uint64_t now_ns);
  // Every member's service from what the bond knows now; tells LACP which members are withdrawn
  // and disables the LACP port of a member whose drain finished. True when something the
  // tables are built from changed (the caller rebuilds).
  bool update_services(std::uint64_t now_ns);
  ServiceInputs service_inputs(std::size_t member, const std::vector<bool>& cabling) const;
  // Members an LLDP cabling finding about the wiring names (several neighbours, different
  // chassis; none without LLDP).
  std::vector<bool> cabling_findings() const;
  // Member m's LACP port is enabled: its link is up and it is not drained.
  bool lacp_enabled(std::size_t member) const;
  void poll_slow_queues(std::uint64_t now_ns);
  // True when the budget ran out with frames left on the ring.
  bool drain_slow_ring(std::uint64_t now_ns);
  void on_slow_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns);
  // An LLDPDU from either path (bond_lldp_path.cpp); returns false when it is not one.
  bool on_lldp_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns);
  void create_lldp();
  // The agents' view of the bond (links, aggregation, LACP partners), then their deadlines.
  std::uint64_t run_lldp(std::uint64_t now_ns);
  bool send_control_frame(std::size_t member, ByteSpan frame) {
    return sender_.send(member, frame);
  }
  // bonds[].bfd: the sessions, their frames to the control queue, their state to health.
  void start_bfd(std::uint64_t now_ns);
  // BFD timers the protocol loop cannot be trusted to hold (a Detection Time within its slack,
  // or within what it was seen late by in the last minute): said at start, with the numbers.
  void warn_if_bfd_outruns_the_loop();
  // Rebuilds every table from what each member may carry now.
  void rebuild(std::uint64_t now_ns, const std::string& cause);
  // What the bond knows of member m for its health.
  HealthFacts health_facts(std::size_t member) const;
  // Member m's health with what the bond knows now; true when its weight changed.
  bool update_health(std::size_t member, std::uint64_t now_ns) {
    return health_.update(member, health_facts(member), now_ns);
  }
  // The sampling tick and the members' deadlines; rebuilds when a weight changed.
  void run_health(std::uint64_t now_ns);
  // BFD Control packets the member's peer owed (while Up) and sent up to now.
  health::CounterSample bfd_sample(std::size_t member, std::uint64_t now_ns);
  void log(std::uint64_t now_ns, std::string text) { events_.log(now_ns, std::move(text)); }

  config::BondConfig config_;
  std::vector<Member> members_;
  BondContext context_;
  rte_ether_addr mac_{};
  BondCounters counters_;
  BondEventLog events_;
  LateDeadlines late_;
  ControlSender sender_;
  MemberLinks links_;
  BondHealth health_;
  ClassTables tables_;
  WorkerClassCounts worker_counts_;
  flow::FlowHasher hasher_;
  rte_ring* slow_ring_ = nullptr;
  BondShared shared_;
  std::unique_ptr<BondLacp> lacp_;  // mode lacp, from start()
  std::unique_ptr<BondBfd> bfd_;
  std::array<std::atomic<std::uint64_t>, kMaxMembers> bfd_local_macs_{};    // BondShared
  std::array<std::atomic<std::uint64_t>, kMaxMembers> bfd_peer_sources_{};  // BondShared
  std::unique_ptr<BondLldp> lldp_;
  std::vector<MemberService> services_;  // by member
  bool stopping_ = false;                // begin_leave
  // Restart: what arm_resume() gave (applied by start()), and each member's outcome as last
  // logged (empty once every armed one has an outcome).
  std::optional<lacp::SavedBond> resume_;
  std::vector<lacp::ResumeOutcome> resume_logged_;
  std::optional<std::size_t> active_backup_member_;
  // Per member, its partner's source address for the workers' policers (BondShared).
  std::array<std::atomic<std::uint64_t>, kMaxMembers> partner_sources_{};
  std::unique_ptr<classify::Classifier> classifier_;
};

}  // namespace braid::bond
