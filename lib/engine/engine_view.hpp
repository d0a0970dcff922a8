// What the engine's commands and metrics share on the control thread: the `clear stats`
// baseline and a once-a-second sample for rates (per port, per worker) and worker busy ratios.
#pragma once

#include <cstdint>
#include <vector>

#include "datapath/counters.hpp"
#include "engine/engine.hpp"

namespace braid::engine {

struct WorkerRates {
  double rx_pps = 0;
  double tx_pps = 0;
  double busy_ratio = 0;  // share of poll loops that found packets
};

struct PortRates {
  double rx_pps = 0;
  double tx_pps = 0;
};

class EngineView {
 public:
  explicit EngineView(Engine& engine) : engine_(engine) {}

  Engine& engine() { return engine_; }
  void clear();                                       // `clear stats`
  datapath::CounterTotals totals() const;             // since the last clear
  datapath::NicCounters nic(std::size_t port) const;  // since the last clear
  void sample(std::uint64_t now_ns);                  // control thread, once a second
  const std::vector<WorkerRates>& worker_rates() const { return worker_rates_; }
  const std::vector<PortRates>& port_rates() const { return port_rates_; }

 private:
  struct WorkerMark {
    std::uint64_t rx = 0, tx = 0, loops = 0, idle_loops = 0;
  };
  Engine& engine_;
  datapath::CounterTotals baseline_{};
  std::vector<datapath::NicCounters> nic_baseline_;
  std::uint64_t last_ns_ = 0;
  std::vector<WorkerMark> last_workers_;
  std::vector<datapath::NicCounters> last_nic_;
  std::vector<WorkerRates> worker_rates_;
  std::vector<PortRates> port_rates_;
};

}  // namespace braid::engine
