// A bond on the control thread: its members' link state, LACP (in mode lacp), the choice of
// which members distribute and collect, and the tables it publishes to workers. Single-threaded:
// only the control thread calls it (poll(), admin changes, snapshots).
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

#include "bond/dpdk/bond_datapath.hpp"
#include "bond/dpdk/table_publisher.hpp"
#include "config/config.hpp"
#include "flow/flow_hash.hpp"
#include "lacp/lacp_system.hpp"
#include "port/ethdev_port.hpp"

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
  std::uint32_t weight = 1;
  std::uint32_t buckets = 0;
  // The RX queue its Slow Protocols frames are steered to; none: workers divert them (ring).
  std::optional<std::uint16_t> slow_rx_queue;
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
  std::uint64_t control_tx = 0;         // LACPDUs and marker responses sent
  std::uint64_t control_tx_failed = 0;  // ... that the member's control TX queue refused
};

class Bond {
 public:
  // `members` are the member ports in config order; each has `control_tx_queue` reserved for
  // this bond's LACPDUs. `now_ns` is the control thread's monotonic clock.
  Bond(const config::BondConfig& config, std::vector<drivers::EthdevPort*> members,
       std::uint16_t control_tx_queue, rte_mempool* control_pool, rte_rcu_qsbr* qsbr);
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
  // Everything periodic: link polling, Slow Protocols frames, LACP timers, table rebuilds.
  // Returns the time at which it next has work.
  std::uint64_t poll(std::uint64_t now_ns);

  // Admin up/down of a member (console `set member`): takes effect at once.
  void set_member_admin(std::size_t member, bool up, std::uint64_t now_ns);
  // LACP rate at run time (console `set bond <b> lacp rate fast|slow`); false if not mode lacp.
  bool set_lacp_rate(bool fast, std::uint64_t now_ns);
  // Member weights (the scheduler's output); applied to usable members at once.
  void set_weights(const std::vector<std::uint32_t>& weights, std::uint64_t now_ns);

  // Scheduler hooks (lib/sched/dpdk/bond_scheduler). Weights for the next rebuild's quotas,
  // without moving a bucket now (a member whose weight turns 0 or back does rebuild).
  void set_weight_targets(const std::vector<std::uint32_t>& weights, std::uint64_t now_ns);
  // While set, a rebuild (member change) moves only the buckets of members that stopped
  // distributing; everything else moves flowlet by flowlet through publish_assignment.
  // Also turns the workers' per-bucket activity recording on or off (only flowlets need it).
  bool flowlet_managed() const { return flowlet_managed_; }
  void set_flowlet_managed(bool managed) {
    flowlet_managed_ = managed;
    record_activity_.store(managed, std::memory_order_relaxed);
  }
  // Publishes `buckets` (same size as the table) through the same RCU path as rebuilds. Refused
  // (false) when a bucket names a member that does not distribute in the current table; a
  // bucket may be kHeldBucket (workers hold its packets until a later table names its member).
  bool publish_assignment(std::span<const MemberIndex> buckets, std::uint64_t now_ns,
                          const std::string& cause);
  const std::vector<MemberIndex>& assignment() const { return buckets_; }
  // Worker w's own per-bucket activity array (created on first request, before workers start).
  BucketActivityArray* activity_for_worker(std::size_t worker);
  const std::vector<std::unique_ptr<BucketActivityArray>>& activity() const { return activity_; }

  const std::string& name() const { return config_.name; }
  const config::BondConfig& config() const { return config_; }
  const BondShared& shared() const { return shared_; }
  std::size_t member_count() const { return members_.size(); }
  std::vector<MemberStatus> members() const;
  const BondCounters& counters() const { return counters_; }
  const std::deque<BondEvent>& events() const { return events_; }
  const lacp::LacpSystem* lacp() const { return lacp_.get(); }
  const BondTable* table() const { return publisher_.current(); }
  const rte_ether_addr& mac() const { return mac_; }
  // Monotonic time of the last table publication (for failover measurement).
  std::uint64_t last_publish_ns() const { return last_publish_ns_; }

 private:
  struct Member {
    drivers::EthdevPort* port;
    rte_ether_addr own_mac{};  // the port's own address: source of its LACPDUs
    bool link_up = false;
    std::uint32_t speed_mbps = 0;
    bool full_duplex = true;
    bool admin_up = true;
    std::uint32_t weight = 1;
    std::optional<std::uint16_t> slow_queue{};  // steered: the control thread polls it
  };

  void poll_links(std::uint64_t now_ns);
  void poll_slow_queues(std::uint64_t now_ns);
  void drain_slow_ring(std::uint64_t now_ns);
  void on_slow_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns);
  void send_control_frame(std::size_t member, ByteSpan frame);
  void rebuild(std::uint64_t now_ns, const std::string& cause);
  bool usable(std::size_t member) const;
  void log(std::uint64_t now_ns, std::string text);
  static int on_link_interrupt(std::uint16_t port_id, rte_eth_event_type event, void* bond,
                               void* unused);

  config::BondConfig config_;
  std::vector<Member> members_;
  std::uint16_t control_tx_queue_;
  rte_mempool* control_pool_;
  rte_ether_addr mac_{};
  flow::FlowHasher hasher_;
  TablePublisher publisher_;
  rte_ring* slow_ring_ = nullptr;
  BondShared shared_;
  std::unique_ptr<lacp::LacpSystem> lacp_;
  std::uint64_t lacp_generation_ = 0;
  std::optional<std::size_t> active_backup_member_;
  std::vector<MemberIndex> buckets_;
  std::uint64_t next_link_poll_ns_ = 0;
  std::atomic<bool> link_event_{false};
  std::vector<bool> lsc_registered_;
  std::uint64_t last_publish_ns_ = 0;
  BondCounters counters_;
  std::deque<BondEvent> events_;
  bool flowlet_managed_ = false;
  std::atomic<bool> record_activity_{false};
  std::vector<std::unique_ptr<BucketActivityArray>> activity_;
};

}  // namespace braid::bond
