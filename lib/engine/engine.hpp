// The forwarding engine: ports from the config, mempools per NUMA socket, workers placed per
// socket, cross-connect routes. EAL must already be initialised (braid's main or a test does
// it). Construction configures and starts the ports (bond members' Slow Protocols steering
// needs them started) and throws on any problem; start() and stop() move packets and stop
// moving them.
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bond/dpdk/bond.hpp"
#include "common/deadline_lag.hpp"
#include "common/slow_reads.hpp"
#include "common/waker.hpp"
#include "config/config.hpp"
#include "datapath/counters.hpp"
#include "engine/memory_plan.hpp"
#include "engine/placement.hpp"
#include "engine/port_queues.hpp"
#include "engine/worker.hpp"
#include "engine/worker_liveness.hpp"
#include "lacp/resume_file.hpp"
#include "port/ethdev_port.hpp"
#include "port/kernel_links.hpp"
#include "sched/dpdk/bond_scheduler.hpp"

namespace braid::engine {

class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  explicit Engine(const config::Config& config);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // start(): start the bonds' control work (first time) and launch the workers. stop(): tell
  // every LACP partner to stop sending (each bond withdraws its members) and keep forwarding
  // until each has (or its patience ran out), so nothing inbound is lost; then stop the workers
  // (they drain their TX buffers first), say goodbye where a partner may still think us in
  // sync, and stop the ports; a start() after it starts them again. Call it from the thread
  // that runs the protocol loop's work (it polls the bonds while it waits).
  // A restart (console `restart`, doc/lacp.md) stops with kRestart: no withdrawals, goodbyes,
  // LLDP shutdowns or links taken down, so the partners keep the aggregation for the next braid.
  enum class StopKind : std::uint8_t { kLeave, kRestart };
  void start();
  void stop(StopKind kind = StopKind::kLeave);
  // LACP-preserving restart: arm_resume() before start() with what the previous process saved
  // (bonds matched by name); restart_points() while running, just before stop(kRestart): a
  // LACPDU at once on every member, then each bond's members in service.
  void arm_resume(const lacp::SavedLacpState& state);
  lacp::SavedLacpState restart_points(std::uint64_t saved_unix_ms);
  // The console's stop/start: workers keep polling, so LACP keeps every frame it needs on every
  // slow path, but forward nothing (data is dropped and counted as `stopped`). Neither waits for
  // the workers longer than kWorkerAckSpinNs (a worker held up in a PMD must not hold up the
  // protocol loop): each returns whether every worker has acknowledged by then, and the protocol
  // loop (poll_control) logs when the others do, or names them after kWorkerAckPatienceNs.
  static constexpr std::uint64_t kWorkerAckSpinNs = 1'000'000;
  static constexpr std::uint64_t kWorkerAckPatienceNs = 1'000'000'000;
  bool pause();
  bool resume();
  // The lcores of the workers that have not acknowledged the last pause() or resume().
  std::vector<unsigned> workers_not_acknowledged() const;
  bool running() const { return running_.load(std::memory_order_relaxed); }
  bool forwarding() const { return running() && forwarding_.load(std::memory_order_relaxed); }

  // The protocol loop's work for the bonds (kernel link events, links, LACP, tables, scheduler
  // periods). Returns when it next has work (monotonic ns).
  std::uint64_t poll_control(std::uint64_t now_ns);
  // What wakes the protocol loop besides its deadlines: link interrupts (waker) and kernel link
  // notifications (kernel_links().fd()).
  const Waker& waker() const { return waker_; }
  SlowReads& slow_reads() const { return *slow_reads_; }
  drivers::KernelLinks& kernel_links() { return kernel_links_; }
  // The lateness of protocol deadlines (bonds and schedulers record into it).
  DeadlineLag& lag() { return lag_; }
  const DeadlineLag& lag() const { return lag_; }

  datapath::CounterTotals totals() const;
  // The port's NIC counters (rte_eth_stats_get). On the protocol loop's thread only (the one
  // that made the engine): ixgbe and i40e accumulate clear-on-read registers without a lock, so
  // a second reader loses or doubles counts. A read from another thread is logged once.
  datapath::NicCounters nic_counters(std::size_t port_index) const;
  std::size_t port_count() const { return ports_.size(); }
  const drivers::EthdevPort& port(std::size_t index) const { return *ports_[index]; }
  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }
  // The (port/RX queue) pairs a worker polls, as "m0/0 m1/0".
  std::string queues_of(const Worker& worker) const;
  // Whether each worker's poll loop keeps moving (checked by poll_control while running).
  const WorkerLiveness& liveness() const { return liveness_; }
  std::size_t bond_count() const { return bonds_.size(); }
  bond::Bond& bond(std::size_t index) { return *bonds_[index]; }
  const bond::Bond& bond(std::size_t index) const { return *bonds_[index]; }
  // The bond's scheduler (policy, weights, flowlet gap, feedback; doc/scheduler.md).
  sched::BondScheduler& bond_scheduler(std::size_t index) { return *schedulers_[index]; }
  const sched::BondScheduler& bond_scheduler(std::size_t index) const {
    return *schedulers_[index];
  }
  const std::string& placement_report() const { return placement_report_; }
  const std::vector<std::string>& notes() const { return notes_; }  // adjustments, to log
  // What the pools were sized by (memory_plan.hpp), and the pools themselves (`show memory`).
  const MemoryPlan& memory_plan() const { return memory_plan_; }
  const std::map<int, rte_mempool*>& mempools() const { return mempools_; }  // by socket
  const rte_mempool* control_pool() const { return control_pool_; }

 private:
  // What a cross-connect joins: a port or a bond.
  struct Endpoint {
    enum class Kind { kNone, kPort, kBond } kind = Kind::kNone;
    std::size_t index = 0;
  };
  struct Membership {
    std::size_t bond = SIZE_MAX;  // SIZE_MAX: not a member
    bond::MemberIndex member = 0;
  };

  void build();
  void release();
  // stop(), step one: every bond withdraws its members and is polled until its partners left.
  void leave_partners();
  void start_ports();
  void check_worker_lcores() const;
  // Until every worker's forwarding_seen is `forwarding`, at most `patience_ns`; whether they all
  // did.
  bool wait_for_workers(bool forwarding, std::uint64_t patience_ns) const;
  // pause()/resume() once the engine runs: sets forwarding_, waits at most kWorkerAckSpinNs.
  bool set_forwarding(bool forwarding);
  // The protocol loop's side of an acknowledgement pause()/resume() did not wait for.
  void check_acknowledgements(std::uint64_t now_ns);
  void resolve_topology();
  void create_mempools();
  void configure_ports();
  std::vector<bool> single_pool_ports() const;
  void create_control_pool();
  void create_bonds();
  void build_workers(const Placement& placement);
  void build_routes(Worker& worker, const std::vector<RxQueueRef>& queues,
                    const std::vector<datapath::TxBuffer*>& buffer_of_port);
  void build_tx_probes(Worker& worker, const std::vector<datapath::TxBuffer*>& buffer_of_port);
  void connect_queue_depths();
  // The liveness check, when due: logs stalls and recoveries. Returns when it is next due.
  std::uint64_t check_workers(std::uint64_t now_ns);

  config::Config config_;
  std::vector<std::unique_ptr<drivers::EthdevPort>> ports_;
  MemoryPlan memory_plan_;
  std::map<int, rte_mempool*> mempools_;  // by socket
  rte_mempool* control_pool_ = nullptr;   // LACPDUs and marker responses
  rte_rcu_qsbr* qsbr_ = nullptr;          // workers' quiescent states, for bond tables
  std::vector<std::unique_ptr<bond::Bond>> bonds_;
  std::vector<std::unique_ptr<sched::BondScheduler>> schedulers_;  // by bond index
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::vector<const TxQueueProbe*>> probes_of_bond_;  // by bond: one per worker
  std::vector<Endpoint> peer_of_port_;                            // by port index
  std::vector<std::size_t> peer_of_bond_;                         // by bond index: a port index
  std::vector<Membership> membership_;                            // by port index
  std::vector<PortQueues> queues_;                                // by port index
  Waker waker_;
  // Driver reads that may block (members' health counters, `show port xstats`).
  std::unique_ptr<SlowReads> slow_reads_ = std::make_unique<SlowReads>();
  drivers::KernelLinks kernel_links_;
  DeadlineLag lag_;
  WorkerLiveness liveness_{0, 0};  // built with the workers
  std::atomic<bool> running_{false};
  std::atomic<bool> forwarding_{true};
  std::thread::id loop_thread_ = std::this_thread::get_id();  // the one that made the engine
  struct AwaitedAcknowledgement {                             // of forwarding_ as it is now
    std::uint64_t since_ns = 0;
    bool warned = false;
  };
  std::optional<AwaitedAcknowledgement> awaited_;
  mutable std::atomic<bool> warned_nic_reads_off_loop_{false};
  unsigned instance_ = 0;  // names this engine's mempools
  bool ports_started_ = false;
  bool control_started_ = false;  // bonds and schedulers started
  std::string placement_report_;
  std::vector<std::string> notes_;
};

// "worker lcore 3" / "worker lcores 3,5" (logs and console replies).
std::string worker_lcores_text(const std::vector<unsigned>& lcores);

}  // namespace braid::engine
