#include "port/ethdev_xstats.hpp"

#include <array>
#include <mutex>

namespace braid::drivers {
namespace {

struct PortCounters {
  std::mutex reading;  // held for a read of the driver (which may block)
  std::mutex last;     // guards the copies below (held for a copy only)
  rte_eth_stats stats{};
  int stats_result = 0;
  XstatList xstats;
};

PortCounters& port_counters(std::uint16_t port_id) {
  static std::array<PortCounters, RTE_MAX_ETHPORTS> ports;
  return ports[port_id % RTE_MAX_ETHPORTS];
}

}  // namespace

CounterReadLock::CounterReadLock(std::uint16_t port_id, Wait wait) : port_id_(port_id) {
  std::mutex& reading = port_counters(port_id).reading;
  if (wait == Wait::kYes) {
    reading.lock();
    held_ = true;
  } else {
    held_ = reading.try_lock();
  }
}

CounterReadLock::~CounterReadLock() {
  if (held_) port_counters(port_id_).reading.unlock();
}

int read_port_stats_held(std::uint16_t port_id, rte_eth_stats& stats) {
  return rte_eth_stats_get(port_id, &stats);
}

XstatList read_ethdev_xstats_held(std::uint16_t port_id) {
  XstatList out;
  const int count = rte_eth_xstats_get_names(port_id, nullptr, 0);
  if (count <= 0) return out;
  std::vector<rte_eth_xstat_name> names(static_cast<std::size_t>(count));
  std::vector<rte_eth_xstat> values(static_cast<std::size_t>(count));
  if (rte_eth_xstats_get_names(port_id, names.data(), count) != count ||
      rte_eth_xstats_get(port_id, values.data(), count) != count) {
    return out;
  }
  for (const rte_eth_xstat& value : values) {
    if (value.id < names.size()) out.emplace_back(names[value.id].name, value.value);
  }
  return out;
}

int read_port_stats(std::uint16_t port_id, rte_eth_stats& stats) {
  PortCounters& port = port_counters(port_id);
  const CounterReadLock reading(port_id, CounterReadLock::Wait::kNo);
  const std::lock_guard last(port.last);
  if (reading.held()) {
    port.stats_result = read_port_stats_held(port_id, port.stats);
  }
  stats = port.stats;
  return port.stats_result;
}

XstatList read_ethdev_xstats(std::uint16_t port_id) {
  PortCounters& port = port_counters(port_id);
  const CounterReadLock reading(port_id, CounterReadLock::Wait::kNo);
  if (reading.held()) {
    XstatList read = read_ethdev_xstats_held(port_id);
    const std::lock_guard last(port.last);
    port.xstats = read;
    return read;
  }
  const std::lock_guard last(port.last);
  return port.xstats;
}

}  // namespace braid::drivers
