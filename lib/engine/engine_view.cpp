#include "engine/engine_view.hpp"

namespace braid::engine {
namespace {

datapath::NicCounters minus(datapath::NicCounters a, const datapath::NicCounters& b) {
  a.rx_packets -= b.rx_packets;
  a.tx_packets -= b.tx_packets;
  a.rx_bytes -= b.rx_bytes;
  a.tx_bytes -= b.tx_bytes;
  a.rx_missed -= b.rx_missed;
  a.rx_no_mbuf -= b.rx_no_mbuf;
  a.rx_errors -= b.rx_errors;
  a.tx_errors -= b.tx_errors;
  return a;
}

}  // namespace

void EngineView::clear() {
  baseline_ = engine_.totals();
  nic_baseline_.clear();
  for (std::size_t i = 0; i < engine_.port_count(); ++i)
    nic_baseline_.push_back(engine_.nic_counters(i));
}

datapath::CounterTotals EngineView::totals() const {
  datapath::CounterTotals now = engine_.totals();
  for (std::size_t i = 0; i < datapath::kMaxPorts; ++i) {
    now.rx_packets[i] -= baseline_.rx_packets[i];
    now.tx_packets[i] -= baseline_.tx_packets[i];
  }
  for (std::size_t i = 0; i < datapath::kDropReasonCount; ++i)
    now.drops[i] -= baseline_.drops[i];
  return now;  // `buffered` is a level, not a count: never rebased
}

datapath::NicCounters EngineView::nic(std::size_t port) const {
  const datapath::NicCounters now = engine_.nic_counters(port);
  return port < nic_baseline_.size() ? minus(now, nic_baseline_[port]) : now;
}

void EngineView::sample(std::uint64_t now_ns) {
  std::vector<WorkerMark> workers;
  for (const auto& worker : engine_.workers()) {
    WorkerMark mark;
    for (std::size_t p = 0; p < datapath::kMaxPorts; ++p) {
      mark.rx += worker->counters.rx_packets[p].get();
      mark.tx += worker->counters.tx_packets[p].get();
    }
    mark.loops = worker->counters.loops.get();
    mark.idle_loops = worker->counters.idle_loops.get();
    workers.push_back(mark);
  }
  std::vector<datapath::NicCounters> nic;
  for (std::size_t i = 0; i < engine_.port_count(); ++i)
    nic.push_back(engine_.nic_counters(i));

  if (last_ns_ != 0 && now_ns > last_ns_ && last_workers_.size() == workers.size()) {
    const double seconds = static_cast<double>(now_ns - last_ns_) / 1e9;
    worker_rates_.assign(workers.size(), {});
    for (std::size_t w = 0; w < workers.size(); ++w) {
      const WorkerMark& a = workers[w];
      const WorkerMark& b = last_workers_[w];
      const std::uint64_t loops = a.loops - b.loops;
      worker_rates_[w] = {static_cast<double>(a.rx - b.rx) / seconds,
                          static_cast<double>(a.tx - b.tx) / seconds,
                          loops == 0 ? 0.0
                                     : 1.0 - static_cast<double>(a.idle_loops - b.idle_loops) /
                                                 static_cast<double>(loops)};
    }
    port_rates_.assign(nic.size(), {});
    for (std::size_t p = 0; p < nic.size() && p < last_nic_.size(); ++p) {
      port_rates_[p] = {static_cast<double>(nic[p].rx_packets - last_nic_[p].rx_packets) / seconds,
                        static_cast<double>(nic[p].tx_packets - last_nic_[p].tx_packets) / seconds};
    }
  }
  last_ns_ = now_ns;
  last_workers_ = std::move(workers);
  last_nic_ = std::move(nic);
}

}  // namespace braid::engine
