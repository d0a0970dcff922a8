#include "engine/member_queue_depth.hpp"

#include <rte_cycles.h>

#include <algorithm>

#include "common/clock.hpp"
#include "linkemu/link_registry.hpp"

namespace braid::engine {
namespace {

// Reading the TSC and the monotonic clock one after the other puts them this far apart at most;
// a measurement time converted from one to the other is taken this much earlier.
constexpr std::uint64_t kClockReadSlackNs = 5'000;

}  // namespace

sched::QueueDepthFn member_queue_depth(std::vector<const TxQueueProbe*> probes,
                                       std::vector<std::uint16_t> member_ports) {
  const double ns_per_cycle = 1e9 / static_cast<double>(rte_get_tsc_hz());
  return [probes = std::move(probes), ports = std::move(member_ports),
          ns_per_cycle](std::size_t member) -> sched::MemberQueue {
    const std::uint64_t now_tsc = rte_rdtsc();
    const std::uint64_t now_ns = monotonic_ns();
    std::uint32_t packets = 0;
    bool descriptors = false;
    std::uint64_t oldest_tsc = now_tsc;
    std::uint64_t oldest_generation = sched::kAckedAll;
    for (const TxQueueProbe* probe : probes) {
      const TxQueueProbe::Reading reading = probe->reading(member);
      packets += reading.packets;
      descriptors |= reading.descriptors;
      oldest_tsc = std::min(oldest_tsc, reading.measured_tsc);
      oldest_generation = std::min(oldest_generation, reading.generation);
    }
    // On the control thread's clock, a little early: the two clocks are read a moment apart.
    const auto age_ns =
        static_cast<std::uint64_t>(static_cast<double>(now_tsc - oldest_tsc) * ns_per_cycle) +
        kClockReadSlackNs;
    sched::MemberQueue queue;
    queue.counted_ns = oldest_tsc != 0 && age_ns < now_ns ? now_ns - age_ns : 0;
    queue.acked_generation = oldest_generation;
    if (descriptors) {
      queue.packets = packets;
    } else if (member < ports.size()) {
      if (const auto link = linkemu::attached_link(ports[member]))
        queue.packets = link->queue_depth + packets;
    }
    return queue;
  };
}

}  // namespace braid::engine
