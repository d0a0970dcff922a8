#include "engine/engine.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "engine/mempool_sizing.hpp"

namespace braid::engine {
namespace {

constexpr std::uint32_t kVlanHeadroom = 2 * 4;  // QinQ
constexpr std::uint32_t kFrameOverhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + kVlanHeadroom;

std::atomic<unsigned> engine_instances{0};  // mempool names must be unique in the process

std::string enabled_lcores() {
  std::string list;
  unsigned lcore = 0;
  RTE_LCORE_FOREACH(lcore) {
    if (!list.empty()) list += ",";
    list += std::to_string(lcore);
  }
  return list;
}

}  // namespace

Engine::Engine(const config::Config& config) : config_(config) {
  check_worker_lcores();
  for (const config::PortConfig& port_config : config_.ports) {
    ports_.push_back(std::make_unique<drivers::EthdevPort>(port_config));
  }
  peer_of_.assign(ports_.size(), SIZE_MAX);
  auto index_of = [&](const std::string& name) {
    for (std::size_t i = 0; i < config_.ports.size(); ++i) {
      if (config_.ports[i].name == name) return i;
    }
    throw EngineError("engine: unknown port " + name);  // config validation makes this impossible
  };
  for (const config::CrossConnect& pair : config_.cross_connects) {
    peer_of_[index_of(pair.a)] = index_of(pair.b);
    peer_of_[index_of(pair.b)] = index_of(pair.a);
  }

  std::vector<PlacementPort> placement_ports;
  for (const auto& port : ports_) {
    placement_ports.push_back({port->name(), port->socket(), port->rx_queues()});
  }
  std::vector<PlacementWorker> placement_workers;
  for (unsigned lcore : config_.workers.lcores) {
    placement_workers.push_back({lcore, static_cast<int>(rte_lcore_to_socket_id(lcore))});
  }
  const Placement placement = place(placement_ports, placement_workers);
  placement_report_ = format_placement(placement_ports, placement_workers, placement);

  create_mempools();
  const auto worker_count = static_cast<std::uint16_t>(config_.workers.lcores.size());
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const std::uint16_t tx_queues =
        config_.ports[i].tx_queues != 0 ? config_.ports[i].tx_queues : worker_count;
    const int socket = ports_[i]->socket();
    rte_mempool* pool = mempools_.contains(socket) ? mempools_[socket] : mempools_.begin()->second;
    ports_[i]->configure(tx_queues, pool);
    for (const std::string& note : ports_[i]->notes())
      notes_.push_back(note);
  }
  build_workers(placement);
}

Engine::~Engine() {
  stop();
  workers_.clear();
  ports_.clear();
  for (auto& [socket, pool] : mempools_)
    rte_mempool_free(pool);
}

void Engine::check_worker_lcores() const {
  for (unsigned lcore : config_.workers.lcores) {
    if (lcore >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore)) {
      throw EngineError("workers.lcores: lcore " + std::to_string(lcore) +
                        " is not enabled in EAL (enabled: " + enabled_lcores() +
                        "); give EAL a matching -l/--lcores list");
    }
    if (lcore == rte_get_main_lcore()) {
      throw EngineError("workers.lcores: lcore " + std::to_string(lcore) +
                        " is EAL's main lcore, which runs the control thread");
    }
  }
}

// One pool per socket that has ports (vdevs without affinity count as the main lcore's socket),
// sized by mbufs_needed() so that forwarding alone can never exhaust it.
void Engine::create_mempools() {
  const int main_socket = static_cast<int>(rte_socket_id());
  std::map<int, MempoolDemand> demand;
  std::map<int, std::uint32_t> max_mtu;
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const config::PortConfig& port = config_.ports[i];
    const int socket = ports_[i]->socket() < 0 ? main_socket : ports_[i]->socket();
    const std::uint16_t tx_queues = port.tx_queues != 0
                                        ? port.tx_queues
                                        : static_cast<std::uint16_t>(config_.workers.lcores.size());
    MempoolDemand& d = demand[socket];
    d.rx_descriptors += std::uint64_t{port.rx_queues} * port.rx_descriptors;
    d.tx_descriptors += std::uint64_t{tx_queues} * port.tx_descriptors;
    d.pmd_held += port.extra_mbufs;
    d.lcores = static_cast<std::uint32_t>(config_.workers.lcores.size() + 1);
    d.egress_ports = static_cast<std::uint32_t>(ports_.size());
    d.burst = config_.workers.burst;
    max_mtu[socket] = std::max<std::uint32_t>(max_mtu[socket], port.mtu);
  }
  const unsigned instance = engine_instances.fetch_add(1);
  for (const auto& [socket, d] : demand) {
    const std::string name = "braid" + std::to_string(instance) + "_s" + std::to_string(socket);
    const std::uint32_t data_room = std::max<std::uint32_t>(
        RTE_MBUF_DEFAULT_BUF_SIZE, max_mtu[socket] + kFrameOverhead + RTE_PKTMBUF_HEADROOM);
    const std::uint32_t count = mbufs_needed(d);
    rte_mempool* pool = rte_pktmbuf_pool_create(name.c_str(), count, kMempoolCacheSize, 0,
                                                static_cast<std::uint16_t>(data_room), socket);
    if (pool == nullptr) {
      throw EngineError("engine: cannot create mempool " + name + " of " + std::to_string(count) +
                        " mbufs on socket " + std::to_string(socket) + ": " +
                        std::strerror(rte_errno) + " (give EAL more memory: -m or hugepages)");
    }
    mempools_[socket] = pool;
    notes_.push_back("mempool " + name + ": " + std::to_string(count) + " mbufs of " +
                     std::to_string(data_room) + " bytes on socket " + std::to_string(socket));
  }
}

void Engine::build_workers(const Placement& placement) {
  const std::uint64_t drain_cycles = rte_get_tsc_hz() * config_.workers.tx_drain_us / 1'000'000;
  for (std::size_t w = 0; w < config_.workers.lcores.size(); ++w) {
    auto worker = std::make_unique<Worker>();
    worker->lcore = config_.workers.lcores[w];
    worker->socket = static_cast<int>(rte_lcore_to_socket_id(worker->lcore));
    worker->burst = config_.workers.burst;
    worker->drain_cycles = std::max<std::uint64_t>(drain_cycles, 1);
    worker->running = &running_;
    // Worker w owns TX queue w on every port: TX queues are never shared between threads.
    std::vector<TxBuffer*> buffer_of_port(ports_.size(), nullptr);
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      worker->tx_buffers.push_back(std::make_unique<TxBuffer>(
          ports_[p]->id(), static_cast<std::uint16_t>(w), worker->burst, worker->counters));
      buffer_of_port[p] = worker->tx_buffers.back().get();
    }
    for (const RxQueueRef& ref : placement.per_worker[w]) {
      const std::size_t peer = peer_of_[ref.port];
      worker->routes.push_back(
          {ports_[ref.port]->id(), ref.queue, peer == SIZE_MAX ? nullptr : buffer_of_port[peer]});
    }
    workers_.push_back(std::move(worker));
  }
}

void Engine::start() {
  if (running()) return;
  if (!ports_started_) {
    for (const auto& port : ports_)
      port->start();
    ports_started_ = true;
  }
  running_.store(true, std::memory_order_release);
  for (const auto& worker : workers_) {
    if (const int rc = rte_eal_remote_launch(worker_main, worker.get(), worker->lcore); rc != 0) {
      running_.store(false);
      rte_eal_mp_wait_lcore();
      throw EngineError("engine: cannot launch worker on lcore " + std::to_string(worker->lcore) +
                        ": " + std::strerror(-rc));
    }
  }
}

void Engine::pause() {
  if (!running()) return;
  running_.store(false, std::memory_order_release);
  for (const auto& worker : workers_)
    rte_eal_wait_lcore(worker->lcore);
}

void Engine::stop() {
  pause();
  if (ports_started_) {
    for (const auto& port : ports_)
      port->stop();
    ports_started_ = false;
  }
}

CounterTotals Engine::totals() const {
  CounterTotals totals;
  for (const auto& worker : workers_)
    totals.add(worker->counters);
  return totals;
}

NicCounters Engine::nic_counters(std::size_t port_index) const {
  rte_eth_stats stats{};
  NicCounters nic;
  if (rte_eth_stats_get(ports_[port_index]->id(), &stats) != 0) return nic;
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
