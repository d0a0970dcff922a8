#include "engine/memory_commands.hpp"

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include <map>
#include <vector>

namespace braid::engine {
namespace {

using control::Args;
using control::MetricType;
using control::Output;

// What one of braid's pools really takes: the memory chunks DPDK populated it with (objects,
// headers, channel padding), its ring of pointers aside.
struct PoolUse {
  std::string name;
  int socket = 0;
  std::uint32_t objects = 0;
  std::uint32_t object_bytes = 0;  // header + mbuf + data room + trailer, as DPDK laid it out
  std::uint64_t chunk_bytes = 0;
};

PoolUse pool_use(const rte_mempool* pool) {
  PoolUse use{.name = pool->name,
              .socket = pool->socket_id,
              .objects = pool->size,
              .object_bytes = pool->header_size + pool->elt_size + pool->trailer_size};
  rte_mempool_mem_iter(
      const_cast<rte_mempool*>(pool),
      [](rte_mempool*, void* opaque, rte_mempool_memhdr* memhdr, unsigned) {
        *static_cast<std::uint64_t*>(opaque) += memhdr->len;
      },
      &use.chunk_bytes);
  return use;
}

std::vector<PoolUse> pools_in_use(const Engine& engine) {
  std::vector<PoolUse> pools;
  for (const auto& [socket, pool] : engine.mempools())
    pools.push_back(pool_use(pool));
  if (engine.control_pool() != nullptr) pools.push_back(pool_use(engine.control_pool()));
  return pools;
}

struct HeapUse {
  std::uint64_t total = 0;
  std::uint64_t allocated = 0;
};

HeapUse heap_use(int socket) {
  rte_malloc_socket_stats stats{};
  if (socket < 0 || rte_malloc_get_socket_stats(socket, &stats) != 0) return {};
  return {stats.heap_totalsz_bytes, stats.heap_allocsz_bytes};
}

void show_memory(const Engine& engine, Output& out) {
  const MemoryPlan& plan = engine.memory_plan();
  control::Table& sockets =
      out.table("sockets", {"socket", "planned_bytes", "mempool_planned_bytes", "mempool_bytes",
                            "heap_bytes", "heap_allocated_bytes"});
  const std::vector<PoolUse> pools = pools_in_use(engine);
  for (const SocketMemory& s : plan.sockets) {
    std::uint64_t in_pools = 0;
    for (const PoolUse& pool : pools) {
      if (pool.socket == s.socket) in_pools += pool.chunk_bytes;
    }
    const HeapUse heap = heap_use(s.socket);
    sockets.row(
        {s.socket, s.total_bytes(),
         s.mempool_bytes +
             (s.control_bytes != 0 ? mempool_bytes(plan.control_mbufs, kMbufDefaultDataRoom) : 0),
         in_pools, heap.total, heap.allocated});
  }
  control::Table& table =
      out.table("mempools", {"mempool", "socket", "mbufs", "object_bytes", "bytes"});
  for (const PoolUse& pool : pools)
    table.row({pool.name, pool.socket, pool.objects, pool.object_bytes, pool.chunk_bytes});
  out.value("bond_table_bytes", plan.bond_table_bytes);
  if (!rte_eal_has_hugepages()) {
    out.line(
        "no hugepages (--no-huge): DPDK keeps each mbuf within one 4 KiB page, so the pools take "
        "more than the plan, which counts hugepages");
  }
}

}  // namespace

void register_memory_commands(control::ControlPlane& control, const Engine& engine) {
  control.commands().add(
      "show memory",
      "per NUMA socket: the memory plan the pools were sized by, and what DPDK allocated",
      [&engine](const Args&, Output& out) { show_memory(engine, out); });
  control.telemetry().add_command("/braid/memory", "memory plan and DPDK heap use per socket",
                                  control.commands(), "show memory");
  control.metrics().add_collector([&engine](control::MetricWriter& w) {
    w.family("braid_memory_planned_bytes",
             "hugepage memory braid planned for its pools and rings on the socket "
             "(braid --check --memory)",
             MetricType::kGauge);
    for (const SocketMemory& s : engine.memory_plan().sockets)
      w.sample({{"socket", std::to_string(s.socket)}}, s.total_bytes());
    w.family("braid_memory_heap_allocated_bytes",
             "DPDK heap memory allocated on the socket (all of the process's DPDK allocations)",
             MetricType::kGauge);
    for (const SocketMemory& s : engine.memory_plan().sockets)
      w.sample({{"socket", std::to_string(s.socket)}}, heap_use(s.socket).allocated);
    w.family("braid_memory_heap_bytes",
             "DPDK heap size on the socket (hugepages, or -m memory with --no-huge)",
             MetricType::kGauge);
    for (const SocketMemory& s : engine.memory_plan().sockets)
      w.sample({{"socket", std::to_string(s.socket)}}, heap_use(s.socket).total);
  });
}

}  // namespace braid::engine
