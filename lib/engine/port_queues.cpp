#include "engine/port_queues.hpp"

#include <algorithm>

namespace braid::engine {

PortQueues plan_port_queues(const config::PortConfig& port, const config::BondConfig* bond,
                            std::size_t workers) {
  PortQueues queues;
  queues.data_rx_queues = port.rx_queues;
  const auto for_workers =
      std::max<std::uint16_t>(port.tx_queues, static_cast<std::uint16_t>(workers));
  queues.tx_queues = for_workers;
  if (bond != nullptr) {
    queues.control_tx_queue = true;
    ++queues.tx_queues;
    queues.slow_rx_queue = bond->slow_steering != config::SlowSteering::kOff;
  }
  return queues;
}

}  // namespace braid::engine
