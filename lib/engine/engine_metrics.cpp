#include "engine/engine_metrics.hpp"

#include <rte_ethdev.h>

namespace braid::engine {
namespace {

// The link's speed in bytes per second (Prometheus' base unit; promtool rejects bits); 0 while the
// link is down or its speed is unknown, so that utilisation (rate of bytes / speed) can filter on
// `> 0`.
double link_speed_bytes_per_second(std::uint16_t port_id) {
  rte_eth_link link{};
  if (rte_eth_link_get_nowait(port_id, &link) != 0 || link.link_status == RTE_ETH_LINK_DOWN ||
      link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
    return 0;
  return static_cast<double>(link.link_speed) * 1e6 / 8;  // link_speed is in Mbit/s
}

}  // namespace

void register_engine_metrics(control::MetricsRegistry& metrics, std::shared_ptr<EngineView> view) {
  using control::MetricType;
  metrics.add_collector([view](control::MetricWriter& w) {
    Engine& engine = view->engine();
    struct PortMetric {
      const char* name;
      const char* help;
      std::uint64_t datapath::NicCounters::*field;
    };
    static constexpr PortMetric kPortMetrics[] = {
        {"braid_port_rx_packets_total", "packets the port received (rte_eth_stats ipackets)",
         &datapath::NicCounters::rx_packets},
        {"braid_port_tx_packets_total", "packets the port sent (opackets)",
         &datapath::NicCounters::tx_packets},
        {"braid_port_rx_bytes_total", "bytes the port received", &datapath::NicCounters::rx_bytes},
        {"braid_port_tx_bytes_total", "bytes the port sent", &datapath::NicCounters::tx_bytes},
        {"braid_port_rx_missed_total", "packets the NIC dropped: RX ring full (imissed)",
         &datapath::NicCounters::rx_missed},
        {"braid_port_rx_no_mbuf_total", "packets the NIC dropped: mempool empty (rx_nombuf)",
         &datapath::NicCounters::rx_no_mbuf},
        {"braid_port_rx_errors_total", "receive errors (ierrors)",
         &datapath::NicCounters::rx_errors},
        {"braid_port_tx_errors_total", "transmit errors (oerrors)",
         &datapath::NicCounters::tx_errors},
    };
    std::vector<datapath::NicCounters> nic;
    for (std::size_t i = 0; i < engine.port_count(); ++i)
      nic.push_back(engine.nic_counters(i));
    for (const PortMetric& metric : kPortMetrics) {
      w.family(metric.name, metric.help, MetricType::kCounter);
      for (std::size_t i = 0; i < nic.size(); ++i)
        w.sample({{"port", engine.port(i).name()}}, nic[i].*metric.field);
    }

    w.family("braid_port_speed_bytes_per_second",
             "the port's link speed; 0 while the link is down or the speed is unknown",
             MetricType::kGauge);
    for (std::size_t i = 0; i < engine.port_count(); ++i)
      w.sample({{"port", engine.port(i).name()}}, link_speed_bytes_per_second(engine.port(i).id()));

    const datapath::CounterTotals totals = engine.totals();
    w.family("braid_drops_total", "packets braid dropped, by reason", MetricType::kCounter);
    for (std::size_t r = 0; r < datapath::kDropReasonCount; ++r)
      w.sample({{"reason", std::string(datapath::kDropReasonNames[r])}}, totals.drops[r]);

    w.family("braid_worker_busy_ratio", "share of a worker's poll loops that found packets (1 s)",
             MetricType::kGauge);
    for (std::size_t i = 0; i < engine.workers().size(); ++i) {
      const double busy =
          i < view->worker_rates().size() ? view->worker_rates()[i].busy_ratio : 0.0;
      w.sample({{"lcore", std::to_string(engine.workers()[i]->lcore)}}, busy);
    }
    const WorkerLiveness& liveness = engine.liveness();
    w.family("braid_worker_stalled",
             "1 while a worker's poll loop has not moved for longer than workers.stall_limit_ms",
             MetricType::kGauge);
    for (std::size_t i = 0; i < engine.workers().size(); ++i) {
      w.sample({{"lcore", std::to_string(engine.workers()[i]->lcore)}},
               std::uint64_t{liveness.workers()[i].stalled ? 1u : 0u});
    }
    w.family("braid_worker_stalls_total", "stall alarms a worker raised", MetricType::kCounter);
    for (std::size_t i = 0; i < engine.workers().size(); ++i) {
      w.sample({{"lcore", std::to_string(engine.workers()[i]->lcore)}},
               liveness.workers()[i].stalls);
    }
    w.family("braid_forwarding", "1 while workers forward (the console's start/stop)",
             MetricType::kGauge);
    w.sample({}, std::uint64_t{engine.forwarding() ? 1u : 0u});
  });
}

}  // namespace braid::engine
