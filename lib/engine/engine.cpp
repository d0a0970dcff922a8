#include "engine/engine.hpp"

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "common/clock.hpp"
#include "congestion/ethtool_stats.hpp"
#include "congestion/sim_source.hpp"
#include "engine/member_queue_depth.hpp"
#include "engine/memory_plan.hpp"
#include "engine/tx_pools.hpp"
#include "linkemu/link_registry.hpp"
#include "log/log_types.hpp"
#include "sched/dpdk/ethdev_xstats.hpp"

namespace braid::engine {
namespace {

// The memory plan's arithmetic (memory_plan.hpp) in DPDK's own terms.
static_assert(kMbufDefaultDataRoom == RTE_MBUF_DEFAULT_BUF_SIZE);
static_assert(kMbufHeadroom == RTE_PKTMBUF_HEADROOM);
static_assert(kMbufStructBytes == sizeof(rte_mbuf));
static_assert(kFrameOverhead == RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 2 * RTE_VLAN_HLEN);
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

Engine::Engine(const config::Config& config)
    : config_(config), lag_(std::uint64_t{config.control.deadline_slack_ms} * 1'000'000) {
  try {
    build();
  } catch (...) {
    release();  // the destructor does not run for an object whose constructor threw
    throw;
  }
}

void Engine::build() {
  check_worker_lcores();
  for (const config::PortConfig& port_config : config_.ports) {
    ports_.push_back(std::make_unique<drivers::EthdevPort>(port_config));
    if (ports_.back()->id() >= datapath::kMaxPorts) {
      throw EngineError("engine: port " + port_config.name + " has ethdev id " +
                        std::to_string(ports_.back()->id()) + ", above braid's limit of " +
                        std::to_string(datapath::kMaxPorts));
    }
  }
  resolve_topology();
  create_mempools();
  configure_ports();
  create_control_pool();
  create_bonds();
  // Which RX queues the workers poll depends on whether each member's NIC took the rule that
  // steers Slow Protocols to its slow queue, which (mlx5) needs a started port: ports start
  // here, before the workers are placed.
  start_ports();
  for (const auto& bond : bonds_)
    bond->set_up_slow_paths(monotonic_ns());

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
  build_workers(placement);
  connect_queue_depths();
}

Engine::~Engine() {
  stop();
  release();
}

void Engine::configure_ports() {
  const std::vector<bool> single_pool = single_pool_ports();
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const int socket = ports_[i]->socket();
    rte_mempool* pool = mempools_.contains(socket) ? mempools_[socket] : mempools_.begin()->second;
    ports_[i]->configure(
        {.tx = queues_[i].tx_queues,
         .slow_rx_descriptors =
             static_cast<std::uint16_t>(queues_[i].slow_rx_queue ? kSlowRxDescriptors : 0),
         .control_tx_descriptors =
             static_cast<std::uint16_t>(queues_[i].control_tx_queue ? kControlTxDescriptors : 0),
         .single_pool_tx = single_pool[i]},
        pool);
    for (const std::string& note : ports_[i]->notes())
      notes_.push_back(note);
  }
}

// The pools each port's TX queues can see (tx_pools.hpp), from the cross-connects and bonds.
std::vector<bool> Engine::single_pool_ports() const {
  std::vector<int> pool_of_port(ports_.size(), 0);
  for (std::size_t p = 0; p < ports_.size(); ++p) {
    const int socket = ports_[p]->socket();
    pool_of_port[p] = mempools_.contains(socket) ? socket : mempools_.begin()->first;
  }
  std::vector<std::vector<std::size_t>> sources(ports_.size());
  for (std::size_t p = 0; p < ports_.size(); ++p) {
    if (const Membership& member = membership_[p]; member.bond != SIZE_MAX) {
      sources[p].push_back(peer_of_bond_[member.bond]);
    } else if (peer_of_port_[p].kind == Endpoint::Kind::kPort) {
      sources[p].push_back(peer_of_port_[p].index);
    } else if (peer_of_port_[p].kind == Endpoint::Kind::kBond) {
      for (std::size_t q = 0; q < ports_.size(); ++q) {
        if (membership_[q].bond == peer_of_port_[p].index) sources[p].push_back(q);
      }
    }
  }
  return single_pool_tx(pool_of_port, sources);
}

// Sized from the members' control TX queues: a PMD that frees a sent mbuf only when its
// descriptor slot is reused holds a whole queue's worth, forever if nothing else is sent.
void Engine::create_control_pool() {
  std::uint32_t mbufs = kControlPoolSpare;
  for (const auto& port : ports_) {
    if (port->control_tx_descriptors() == 0) continue;
    mbufs += port->control_tx_descriptors() + kControlFramesInFlightPerMember;
  }
  const std::string name = "braid" + std::to_string(instance_) + "_ctl";
  control_pool_ = rte_pktmbuf_pool_create(name.c_str(), mbufs, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                          static_cast<int>(rte_socket_id()));
  if (control_pool_ == nullptr) {
    control_pool_ = rte_pktmbuf_pool_create(name.c_str(), mbufs, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                            SOCKET_ID_ANY);
  }
  if (control_pool_ == nullptr) {
    throw EngineError("engine: cannot create mempool " + name + " of " + std::to_string(mbufs) +
                      " mbufs: " + std::strerror(rte_errno));
  }
  notes_.push_back("mempool " + name + ": " + std::to_string(mbufs) +
                   " mbufs for LACPDUs and marker responses (the members' control TX queues " +
                   "and " + std::to_string(kControlFramesInFlightPerMember) + " per member)");
}

void Engine::release() {
  slow_reads_->stop();  // a read under way uses the bonds and ports
  workers_.clear();
  schedulers_.clear();
  bonds_.clear();
  ports_.clear();  // a started port stops first
  for (auto& [socket, pool] : mempools_)
    rte_mempool_free(pool);
  mempools_.clear();
  rte_mempool_free(control_pool_);
  control_pool_ = nullptr;
  rte_free(qsbr_);
  qsbr_ = nullptr;
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

void Engine::resolve_topology() {
  auto port_index = [&](std::string_view name) -> std::size_t {
    for (std::size_t i = 0; i < config_.ports.size(); ++i) {
      if (config_.ports[i].name == name) return i;
    }
    return SIZE_MAX;
  };
  auto endpoint = [&](std::string_view name) {
    for (std::size_t b = 0; b < config_.bonds.size(); ++b) {
      if (config_.bonds[b].name == name) return Endpoint{Endpoint::Kind::kBond, b};
    }
    return Endpoint{Endpoint::Kind::kPort, port_index(name)};
  };
  peer_of_port_.assign(ports_.size(), Endpoint{});
  peer_of_bond_.assign(config_.bonds.size(), SIZE_MAX);
  membership_.assign(ports_.size(), Membership{});
  for (std::size_t b = 0; b < config_.bonds.size(); ++b) {
    for (std::size_t m = 0; m < config_.bonds[b].members.size(); ++m) {
      membership_[port_index(config_.bonds[b].members[m])] = {b, static_cast<bond::MemberIndex>(m)};
    }
  }
  // Config validation guarantees both ends exist and at most one end is a bond.
  for (const config::CrossConnect& pair : config_.cross_connects) {
    const Endpoint a = endpoint(pair.a);
    const Endpoint b = endpoint(pair.b);
    for (const auto& [self, other] : {std::pair{a, b}, std::pair{b, a}}) {
      if (self.kind == Endpoint::Kind::kPort) {
        peer_of_port_[self.index] = other;
      } else {
        peer_of_bond_[self.index] = other.index;
      }
    }
  }
  for (const config::PortConfig& port : config_.ports) {
    queues_.push_back(
        plan_port_queues(port, config_.bond_of_port(port.name), config_.workers.lcores.size()));
  }
}

// One pool per socket that has ports (vdevs without affinity count as the main lcore's socket),
// sized by the memory plan (mbufs_needed) so that forwarding alone can never exhaust it.
void Engine::create_mempools() {
  const int main_socket = static_cast<int>(rte_socket_id());
  std::vector<int> port_sockets;
  for (const auto& port : ports_)
    port_sockets.push_back(port->socket());
  memory_plan_ = plan_memory(config_, port_sockets, main_socket);
  const unsigned instance = instance_ = engine_instances.fetch_add(1);
  for (const SocketMemory& planned : memory_plan_.sockets) {
    if (planned.mbufs == 0) continue;  // the main socket without ports
    const int socket = planned.socket;
    const std::string name = "braid" + std::to_string(instance) + "_s" + std::to_string(socket);
    const std::uint32_t count = planned.mbufs;
    const auto data_room = static_cast<std::uint16_t>(planned.data_room);
    rte_mempool* pool =
        rte_pktmbuf_pool_create(name.c_str(), count, kMempoolCacheSize, 0, data_room, socket);
    if (pool == nullptr && socket != main_socket) {
      // EAL has no memory on that socket (--no-huge gives it only to the first, or --socket-mem
      // left it out): a pool of its own elsewhere, remote memory for those ports.
      pool = rte_pktmbuf_pool_create(name.c_str(), count, kMempoolCacheSize, 0, data_room,
                                     SOCKET_ID_ANY);
      if (pool != nullptr) {
        notes_.push_back("mempool " + name + ": no memory on socket " + std::to_string(socket) +
                         ", placed on socket " + std::to_string(pool->socket_id) +
                         " (remote for its ports: give EAL memory on every socket with ports)");
      }
    }
    if (pool == nullptr) {
      throw EngineError("engine: cannot create mempool " + name + " of " + std::to_string(count) +
                        " mbufs on socket " + std::to_string(socket) + ": " +
                        std::strerror(rte_errno) + " (give EAL more memory: -m or hugepages)");
    }
    mempools_[socket] = pool;
    notes_.push_back("mempool " + name + ": " + std::to_string(count) + " mbufs of " +
                     std::to_string(data_room) + " bytes on socket " + std::to_string(socket));
  }
  const auto workers = static_cast<std::uint32_t>(config_.workers.lcores.size());
  const std::size_t qsbr_size = rte_rcu_qsbr_get_memsize(workers);
  qsbr_ = static_cast<rte_rcu_qsbr*>(rte_zmalloc("braid_qsbr", qsbr_size, RTE_CACHE_LINE_SIZE));
  if (qsbr_ == nullptr || rte_rcu_qsbr_init(qsbr_, workers) != 0) {
    throw EngineError("engine: cannot set up RCU state for " + std::to_string(workers) +
                      " workers");
  }
}

namespace {

// The bond's PFC priority and those its classes ride on: the pause counters the source reads.
congestion::PfcPriorities pfc_priorities(const config::BondConfig& bond) {
  congestion::PfcPriorities pfc;
  pfc.bond = static_cast<std::uint8_t>(bond.scheduler.congestion.priority);
  for (const classify::ClassSpec& spec : bond.classes.classes)
    pfc.in_use = static_cast<std::uint8_t>(pfc.in_use | 1u << spec.priority.value_or(pfc.bond));
  return pfc;
}

std::unique_ptr<congestion::Source> make_congestion_source(
    const config::BondConfig& bond, const std::vector<drivers::EthdevPort*>& members) {
  const config::CongestionConfig& c = bond.scheduler.congestion;
  std::vector<std::uint16_t> port_ids;
  for (const drivers::EthdevPort* port : members)
    port_ids.push_back(port->id());
  auto xstats = [port_ids](std::size_t member) {
    return sched::read_ethdev_xstats(port_ids.at(member));
  };
  const std::string name = bond.name;
  auto logger = [name, members = bond.members](std::size_t member, const std::string& what) {
    const std::string member_name =
        member < members.size() ? members[member] : "#" + std::to_string(member);
    BRAID_LOG_TO(kBond, WARNING, "bond %s: member %s: congestion: %s\n", name.c_str(),
                 member_name.c_str(), what.c_str());
  };
  if (c.source == "mlx5") {
    congestion::Mlx5Settings settings;
    settings.pfc = pfc_priorities(bond);
    settings.sysfs_root = c.sysfs_root;
    settings.rdma_devices = c.rdma_devices;
    settings.netdevs = c.netdevs;
    for (const drivers::EthdevPort* port : members) {
      rte_eth_dev_info info{};
      const char* device = rte_eth_dev_info_get(port->id(), &info) == 0 && info.device != nullptr
                               ? rte_dev_name(info.device)
                               : "";
      settings.pci_addresses.emplace_back(device);
    }
    // PFC pause counters are only in the kernel netdev's ethtool stats (drivers/congestion).
    return congestion::make_mlx5_source(settings, xstats, congestion::read_ethtool_stats, logger);
  }
  if (c.source == "xstats") {
    congestion::XstatsNames names{c.pause_xstat,    c.pause_duration_xstat,
                                  c.discards_xstat, c.ecn_xstat,
                                  c.cnp_xstat,      c.tx_packets_xstat};
    return congestion::make_xstats_source(names, xstats, logger, pfc_priorities(bond));
  }
  if (c.source == "sim") {
    congestion::SimSettings settings;
    settings.pause_permille = c.sim_pause_permille;
    settings.pfc = pfc_priorities(bond);
    settings.link_counters =
        [port_ids](std::size_t member) -> std::optional<sched::CongestionCounters> {
      const auto link = linkemu::attached_link(port_ids.at(member));
      if (!link) return std::nullopt;
      return link->congestion;
    };
    return congestion::make_sim_source(settings, members.size());
  }
  return nullptr;
}

}  // namespace

void Engine::create_bonds() {
  for (std::size_t b = 0; b < config_.bonds.size(); ++b) {
    const config::BondConfig& bond_config = config_.bonds[b];
    std::vector<drivers::EthdevPort*> members;
    std::uint16_t control_queue = UINT16_MAX;
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      if (membership_[p].bond != b) continue;
      members.resize(std::max<std::size_t>(members.size(), membership_[p].member + 1u));
      members[membership_[p].member] = ports_[p].get();
      control_queue = std::min(control_queue, queues_[p].control_tx_queue_index());
    }
    // Every member has the same count of worker queues, so the control queue index is shared.
    const bond::BondContext context{.control_tx_queue = control_queue,
                                    .control_pool = control_pool_,
                                    .qsbr = qsbr_,
                                    .kernel_links = &kernel_links_,
                                    .waker = &waker_,
                                    .slow_reads = slow_reads_.get(),
                                    .lag = &lag_,
                                    .number = static_cast<std::uint32_t>(b + 1)};
    bonds_.push_back(std::make_unique<bond::Bond>(bond_config, members, context));
    bonds_.back()->prepare_members();
    schedulers_.push_back(std::make_unique<sched::BondScheduler>(
        *bonds_.back(), sched::settings_from_config(bond_config.scheduler, members.size()),
        make_congestion_source(bond_config, members)));
    schedulers_.back()->set_lag(&lag_);
  }
}

void Engine::build_workers(const Placement& placement) {
  const std::uint64_t drain_cycles = rte_get_tsc_hz() * config_.workers.tx_drain_us / 1'000'000;
  for (std::size_t w = 0; w < config_.workers.lcores.size(); ++w) {
    auto worker = std::make_unique<Worker>();
    worker->lcore = config_.workers.lcores[w];
    worker->index = static_cast<unsigned>(w);
    worker->socket = static_cast<int>(rte_lcore_to_socket_id(worker->lcore));
    worker->burst = config_.workers.burst;
    worker->drain_cycles = std::max<std::uint64_t>(drain_cycles, 1);
    worker->running = &running_;
    worker->forwarding = &forwarding_;
    worker->qsbr = qsbr_;
    rte_rcu_qsbr_thread_register(qsbr_, worker->index);
    std::vector<datapath::TxBuffer*> buffer_of_port(ports_.size(), nullptr);
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      worker->tx_buffers.push_back(std::make_unique<datapath::TxBuffer>(
          ports_[p]->id(), static_cast<std::uint16_t>(w), worker->burst, worker->counters));
      buffer_of_port[p] = worker->tx_buffers.back().get();
    }
    build_routes(*worker, placement.per_worker[w], buffer_of_port);
    build_tx_probes(*worker, buffer_of_port);
    workers_.push_back(std::move(worker));
  }
  liveness_ =
      WorkerLiveness(std::uint64_t{config_.workers.stall_limit_ms} * 1'000'000, workers_.size());
}

void Engine::build_routes(Worker& worker, const std::vector<RxQueueRef>& queues,
                          const std::vector<datapath::TxBuffer*>& buffer_of_port) {
  // One egress object per bond per worker, shared by every route of this worker into the bond.
  std::vector<bond::BondEgress*> egress_of_bond(bonds_.size(), nullptr);
  for (std::size_t b = 0; b < bonds_.size(); ++b) {
    std::array<datapath::TxBuffer*, bond::kMaxMembers> member_tx{};
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      if (membership_[p].bond == b) member_tx[membership_[p].member] = buffer_of_port[p];
    }
    worker.bond_egress.push_back(std::make_unique<bond::BondEgress>(
        bonds_[b]->shared(), member_tx, bonds_[b]->activity_for_worker(worker.index),
        bonds_[b]->class_hits_for_worker(worker.index)));
    egress_of_bond[b] = worker.bond_egress.back().get();
  }
  for (const RxQueueRef& ref : queues) {
    RxRoute route;
    route.port = ports_[ref.port]->id();
    route.queue = ref.queue;
    if (const Membership& member = membership_[ref.port]; member.bond != SIZE_MAX) {
      datapath::TxBuffer* peer_tx = buffer_of_port[peer_of_bond_[member.bond]];
      worker.bond_ingress.push_back(std::make_unique<bond::BondIngress>(
          bonds_[member.bond]->shared(), member.member, route.port, peer_tx));
      route.kind = RouteKind::kFromMember;
      route.bond_ingress = worker.bond_ingress.back().get();
    } else if (const Endpoint& peer = peer_of_port_[ref.port]; peer.kind == Endpoint::Kind::kPort) {
      route.kind = RouteKind::kToPort;
      route.egress = buffer_of_port[peer.index];
    } else if (peer.kind == Endpoint::Kind::kBond) {
      route.kind = RouteKind::kToBond;
      route.bond_egress = egress_of_bond[peer.index];
    }
    worker.routes.push_back(route);
  }
}

void Engine::start_ports() {
  for (const auto& port : ports_)
    port->start();
  ports_started_ = true;
}

void Engine::build_tx_probes(Worker& worker,
                             const std::vector<datapath::TxBuffer*>& buffer_of_port) {
  const std::uint64_t interval_cycles = rte_get_tsc_hz() * kQueueProbeIntervalUs / 1'000'000;
  probes_of_bond_.resize(bonds_.size());
  for (std::size_t b = 0; b < bonds_.size(); ++b) {
    std::vector<TxQueueProbe::MemberQueue> members(bonds_[b]->member_count());
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      if (membership_[p].bond != b) continue;
      TxQueueProbe::MemberQueue& member = members[membership_[p].member];
      member.port = ports_[p]->id();
      member.queue = static_cast<std::uint16_t>(worker.index);
      member.ring_size = ports_[p]->tx_descriptors();
      member.buffer = buffer_of_port[p];
      rte_eth_txq_info info{};
      if (rte_eth_tx_queue_info_get(member.port, member.queue, &info) == 0) {
        if (info.nb_desc != 0) member.ring_size = info.nb_desc;
        member.report_interval = std::max<std::uint32_t>(info.conf.tx_rs_thresh, 1);
      }
      // mlx5 reports no tx_rs_thresh; it completes every MLX5_TX_COMP_THRESH packets.
      if (ports_[p]->is_mlx5()) {
        member.report_interval = std::max(member.report_interval, kMlx5CompletionInterval);
      }
    }
    worker.tx_probes.push_back(std::make_unique<TxQueueProbe>(worker.bond_egress[b].get(),
                                                              std::move(members), interval_cycles));
    probes_of_bond_[b].push_back(worker.tx_probes.back().get());
  }
}

// Every bond's scheduler reads its members' queues from the workers' probes (and from a link
// emulator attached to a member port), so lqf sees real queues and moves wait for what the workers
// sent, without any other wiring.
void Engine::connect_queue_depths() {
  for (std::size_t b = 0; b < bonds_.size(); ++b) {
    std::vector<std::uint16_t> member_ports(bonds_[b]->member_count(), 0);
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      if (membership_[p].bond == b) member_ports[membership_[p].member] = ports_[p]->id();
    }
    schedulers_[b]->set_queue_depth(member_queue_depth(
        b < probes_of_bond_.size() ? probes_of_bond_[b] : std::vector<const TxQueueProbe*>{},
        std::move(member_ports)));
  }
}

}  // namespace braid::engine
