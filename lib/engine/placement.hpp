// Which worker polls which (port, RX queue): a pure function of the ports' and workers' NUMA
// sockets, so it is testable without EAL. Queues stay on their port's socket when a worker is
// there; otherwise they go to any worker and the report warns (cross-socket polling costs
// latency and memory bandwidth).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace braid::engine {

inline constexpr int kAnySocket = -1;  // vdevs and devices without NUMA affinity

struct PlacementPort {
  std::string name;
  int socket = kAnySocket;
  std::uint16_t rx_queues = 1;
};

struct PlacementWorker {
  unsigned lcore = 0;
  int socket = 0;
};

struct RxQueueRef {
  std::size_t port = 0;  // index into the ports given to place()
  std::uint16_t queue = 0;
  bool operator==(const RxQueueRef&) const = default;
};

struct Placement {
  std::vector<std::vector<RxQueueRef>> per_worker;  // same order as the workers given
  std::vector<std::string> warnings;
};

Placement place(const std::vector<PlacementPort>& ports,
                const std::vector<PlacementWorker>& workers);

// Multi-line report: one line per worker (lcore, socket, what it polls), then the warnings.
std::string format_placement(const std::vector<PlacementPort>& ports,
                             const std::vector<PlacementWorker>& workers,
                             const Placement& placement);

}  // namespace braid::engine
