// The running engine: start and stop (a planned stop lets every LACP partner go first), the
// console's pause and resume, the protocol loop's work for the bonds, the workers' liveness, and
// the counters summed over the workers.
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "engine/engine.hpp"
#include "log/log_types.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::engine {
namespace {

// How long stop() retries goodbye LACPDUs the ports refuse, and then waits for the PMDs to put
// them on the wire before the ports stop.
constexpr std::uint64_t kGoodbyePatienceNs = 20'000'000;
constexpr unsigned kGoodbyeSettleUs = 2000;
// A planned stop withdraws every member and waits, still forwarding, for each partner to stop
// sending (lacp.withdraw.patience_ms each); the loop polls the bonds at least this often, and
// never waits past the longest patience plus the slack.
constexpr std::uint64_t kLeavePollNs = 200'000;
constexpr std::uint64_t kLeaveSlackNs = 50'000'000;
// How long pause() and resume() wait for every worker to acknowledge (a worker descheduled on
// an overloaded machine may take a scheduler tick or more).

}  // namespace

void Engine::start() {
  if (running()) return;
  if (!ports_started_) start_ports();  // again, after a stop()
  if (!control_started_) {
    const std::uint64_t now = monotonic_ns();
    for (const auto& bond : bonds_)
      bond->start(now);
    for (const auto& scheduler : schedulers_)
      scheduler->start(now);
    control_started_ = true;
  }
  forwarding_.store(true, std::memory_order_release);
  running_.store(true, std::memory_order_release);
  liveness_.restart(monotonic_ns());
  for (const auto& worker : workers_) {
    if (const int rc = rte_eal_remote_launch(worker_main, worker.get(), worker->lcore); rc != 0) {
      running_.store(false);
      rte_eal_mp_wait_lcore();
      throw EngineError("engine: cannot launch worker on lcore " + std::to_string(worker->lcore) +
                        ": " + std::strerror(-rc));
    }
  }
}

bool Engine::pause() {
  return !running() || set_forwarding(false);
}

bool Engine::resume() {
  if (!running()) {
    start();
    return true;
  }
  return set_forwarding(true);
}

// A worker acknowledges at the top of its next loop: a stopping one after it drained what it was
// sending; until a starting one does, its bursts are still dropped as `stopped`.
bool Engine::set_forwarding(bool forwarding) {
  if (forwarding_.load() == forwarding) return true;
  forwarding_.store(forwarding, std::memory_order_release);
  if (wait_for_workers(forwarding, kWorkerAckSpinNs)) {
    awaited_.reset();  // a stop not yet acknowledged, overtaken by this start (or the reverse)
    return true;
  }
  awaited_ = AwaitedAcknowledgement{monotonic_ns(), false};
  return false;
}

bool Engine::wait_for_workers(bool forwarding, std::uint64_t patience_ns) const {
  const std::uint64_t deadline = monotonic_ns() + patience_ns;
  bool all = true;
  for (const auto& worker : workers_) {
    while (worker->forwarding_seen.load(std::memory_order_acquire) != forwarding &&
           monotonic_ns() < deadline)
      rte_pause();
    all = all && worker->forwarding_seen.load(std::memory_order_acquire) == forwarding;
  }
  return all;
}

std::vector<unsigned> Engine::workers_not_acknowledged() const {
  std::vector<unsigned> late;
  const bool wanted = forwarding_.load(std::memory_order_relaxed);
  for (const auto& worker : workers_) {
    if (worker->forwarding_seen.load(std::memory_order_acquire) != wanted)
      late.push_back(worker->lcore);
  }
  return late;
}

void Engine::check_acknowledgements(std::uint64_t now_ns) {
  if (!awaited_) return;
  if (!running()) {
    awaited_.reset();
    return;
  }
  const char* what = forwarding_.load(std::memory_order_relaxed) ? "started" : "stopped";
  const std::vector<unsigned> late = workers_not_acknowledged();
  const double ms = static_cast<double>(now_ns - awaited_->since_ns) / 1e6;
  if (late.empty()) {
    BRAID_LOG_TO(kEngine, INFO, "forwarding %s: every worker acknowledged, the last %.1f ms late\n",
                 what, ms);
    awaited_.reset();
    return;
  }
  if (!awaited_->warned && now_ns - awaited_->since_ns >= kWorkerAckPatienceNs) {
    BRAID_LOG_TO(kEngine, WARNING,
                 "forwarding %s, but no acknowledgement after %.0f ms from %s (held up in a PMD, "
                 "or descheduled: show workers)\n",
                 what, ms, worker_lcores_text(late).c_str());
    awaited_->warned = true;
  }
}

std::string worker_lcores_text(const std::vector<unsigned>& lcores) {
  std::string list;
  for (const unsigned lcore : lcores)
    list += (list.empty() ? "" : ",") + std::to_string(lcore);
  return (lcores.size() == 1 ? "worker lcore " : "worker lcores ") + list;
}

void Engine::arm_resume(const lacp::SavedLacpState& state) {
  for (const lacp::SavedBond& saved : state.bonds) {
    for (const auto& bond : bonds_) {
      if (bond->name() == saved.name) bond->arm_resume(saved);
    }
  }
}

lacp::SavedLacpState Engine::restart_points(std::uint64_t saved_unix_ms) {
  lacp::SavedLacpState state{saved_unix_ms, {}};
  if (!control_started_) return state;
  const std::uint64_t now = monotonic_ns();
  for (const auto& bond : bonds_) {
    if (bond->lacp() != nullptr) state.bonds.push_back(bond->restart_points(now));
  }
  return state;
}

void Engine::stop(StopKind kind) {
  const bool leave = kind == StopKind::kLeave;
  if (leave && running() && control_started_) leave_partners();
  if (running()) {
    running_.store(false, std::memory_order_release);
    for (const auto& worker : workers_)
      rte_eal_wait_lcore(worker->lcore);
    liveness_.restart(monotonic_ns());  // a stopped worker is no stalled one
  }
  if (ports_started_) {
    if (control_started_ && leave) {
      std::size_t goodbyes = 0;
      for (const auto& bond : bonds_)
        goodbyes += bond->leave_service(monotonic_ns(), kGoodbyePatienceNs);
      // The PMDs put the goodbyes on the wire asynchronously: give them that before the ports
      // stop (a stop may drop what is still queued).
      if (goodbyes != 0) rte_delay_us_sleep(kGoodbyeSettleUs);
    }
    for (const auto& port : ports_)
      port->stop();
    ports_started_ = false;
    control_started_ = false;
  }
}

void Engine::leave_partners() {
  std::uint64_t now = monotonic_ns();
  std::uint64_t patience_ns = 0;
  for (const auto& bond : bonds_) {
    bond->begin_leave(now);
    patience_ns = std::max(patience_ns, bond->config().lacp.withdraw.patience_ns);
  }
  auto all_left = [this] {
    return std::all_of(bonds_.begin(), bonds_.end(), [](const auto& bond) { return bond->left(); });
  };
  // Each member's own patience ends its wait; this bounds the loop should a clock misbehave.
  const std::uint64_t until = now + patience_ns + kLeaveSlackNs;
  const std::uint64_t started = now;
  while (!all_left() && now < until) {
    const std::uint64_t next = poll_control(now);
    const std::uint64_t wake = std::min(next, now + kLeavePollNs);
    if (wake > now) rte_delay_us_sleep(static_cast<unsigned>((wake - now) / 1000 + 1));
    now = monotonic_ns();
  }
  for (const auto& bond : bonds_) {
    if (bond->lacp() == nullptr) continue;
    BRAID_LOG_TO(kEngine, INFO, "bond %s: partners left in %.1f ms: %s\n", bond->name().c_str(),
                 static_cast<double>(now - started) / 1e6, bond->leave_report().c_str());
  }
}

std::uint64_t Engine::poll_control(std::uint64_t now_ns) {
  check_acknowledgements(now_ns);
  std::uint64_t next = check_workers(now_ns);
  // An awaited acknowledgement is looked at again within a millisecond.
  if (awaited_) next = std::min(next, now_ns + kWorkerAckSpinNs);
  if (!control_started_) return next;
  if (kernel_links_.poll()) {
    for (const auto& bond : bonds_)
      bond->notify_link_event();
  }
  for (const auto& bond : bonds_)
    next = std::min(next, bond->poll(now_ns));
  for (const auto& scheduler : schedulers_)
    next = std::min(next, scheduler->poll(now_ns));
  return next;
}

std::uint64_t Engine::check_workers(std::uint64_t now_ns) {
  if (!running()) return UINT64_MAX;
  if (now_ns < liveness_.next_check_ns()) return liveness_.next_check_ns();
  std::vector<std::uint64_t> loops;
  loops.reserve(workers_.size());
  for (const auto& worker : workers_)
    loops.push_back(worker->counters.loops.get());
  for (const WorkerLiveness::Event& event : liveness_.check(loops, now_ns)) {
    const Worker& worker = *workers_[event.worker];
    const double ms = static_cast<double>(event.still_ns) / 1e6;
    if (event.stalled) {
      BRAID_LOG_TO(kEngine, WARNING,
                   "worker lcore %u stalled: its poll loop has not moved for %.1f ms (limit %llu "
                   "ms); its queues %s are not served\n",
                   worker.lcore, ms,
                   static_cast<unsigned long long>(liveness_.stall_limit_ns() / 1'000'000),
                   queues_of(worker).c_str());
    } else {
      BRAID_LOG_TO(kEngine, WARNING, "worker lcore %u running again after a stall of %.1f ms\n",
                   worker.lcore, ms);
    }
  }
  return liveness_.next_check_ns();
}

std::string Engine::queues_of(const Worker& worker) const {
  std::string queues;
  for (const RxRoute& route : worker.routes) {
    const std::string name = route.port < ports_.size() ? ports_[route.port]->name()
                                                        : "port" + std::to_string(route.port);
    queues += (queues.empty() ? "" : " ") + name + "/" + std::to_string(route.queue);
    // A queue polled across sockets says so: the NUMA placement report's warning, kept visible.
    if (route.port < ports_.size()) {
      const int socket = ports_[route.port]->socket();
      if (socket >= 0 && socket != worker.socket)
        queues += "(socket " + std::to_string(socket) + ")";
    }
  }
  return queues;
}

datapath::CounterTotals Engine::totals() const {
  datapath::CounterTotals totals;
  for (const auto& worker : workers_)
    totals.add(worker->counters);
  return totals;
}

datapath::NicCounters Engine::nic_counters(std::size_t port_index) const {
  if (std::this_thread::get_id() != loop_thread_ && !warned_nic_reads_off_loop_.exchange(true)) {
    BRAID_LOG_TO(kEngine, ERR,
                 "NIC statistics of port %s read off the protocol loop: ixgbe and i40e lose or "
                 "double counts when two threads read a port (a defect: please report it)\n",
                 ports_[port_index]->name().c_str());
  }
  rte_eth_stats stats{};
  datapath::NicCounters nic;
  if (drivers::read_port_stats(ports_[port_index]->id(), stats) != 0) return nic;
  nic.rx_packets = stats.ipackets;
  nic.tx_packets = stats.opackets;
  nic.rx_bytes = stats.ibytes;
  nic.tx_bytes = stats.obytes;
  nic.rx_missed = stats.imissed;
  nic.rx_no_mbuf = stats.rx_nombuf;
  nic.rx_errors = stats.ierrors;
  nic.tx_errors = stats.oerrors;
  return nic;
}

}  // namespace braid::engine
