#include "engine/placement.hpp"

#include <algorithm>

namespace braid::engine {

Placement place(const std::vector<PlacementPort>& ports,
                const std::vector<PlacementWorker>& workers) {
  Placement placement;
  placement.per_worker.resize(workers.size());
  if (workers.empty()) return placement;
  for (std::size_t port_index = 0; port_index < ports.size(); ++port_index) {
    const PlacementPort& port = ports[port_index];
    std::vector<std::size_t> candidates;
    for (std::size_t w = 0; w < workers.size(); ++w) {
      if (port.socket == kAnySocket || workers[w].socket == port.socket) candidates.push_back(w);
    }
    if (candidates.empty()) {
      placement.warnings.push_back("port " + port.name + " is on socket " +
                                   std::to_string(port.socket) +
                                   " but no worker lcore is; its queues are polled across "
                                   "sockets (add a worker lcore on socket " +
                                   std::to_string(port.socket) + ")");
      for (std::size_t w = 0; w < workers.size(); ++w)
        candidates.push_back(w);
    }
    // Least-loaded candidate first; ties go to the earliest worker, so the result is stable.
    for (std::uint16_t queue = 0; queue < port.rx_queues; ++queue) {
      const std::size_t chosen = *std::min_element(
          candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
            return placement.per_worker[a].size() < placement.per_worker[b].size();
          });
      placement.per_worker[chosen].push_back({port_index, queue});
    }
  }
  for (std::size_t w = 0; w < workers.size(); ++w) {
    if (placement.per_worker[w].empty()) {
      placement.warnings.push_back("worker lcore " + std::to_string(workers[w].lcore) +
                                   " has no RX queue to poll (add rx_queues or remove the lcore)");
    }
  }
  return placement;
}

std::string format_placement(const std::vector<PlacementPort>& ports,
                             const std::vector<PlacementWorker>& workers,
                             const Placement& placement) {
  std::string report;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    report += "worker lcore " + std::to_string(workers[w].lcore) + " (socket " +
              std::to_string(workers[w].socket) + "): polls";
    if (placement.per_worker[w].empty()) report += " nothing";
    for (const RxQueueRef& ref : placement.per_worker[w]) {
      const PlacementPort& port = ports[ref.port];
      report += " " + port.name + "/rxq" + std::to_string(ref.queue);
      if (port.socket != kAnySocket) report += "(socket " + std::to_string(port.socket) + ")";
    }
    report += "\n";
  }
  for (const std::string& warning : placement.warnings)
    report += "warning: " + warning + "\n";
  return report;
}

}  // namespace braid::engine
