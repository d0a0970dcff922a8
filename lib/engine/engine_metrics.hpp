// The engine's Prometheus metrics: per-port NIC counters and link speed, drops by reason, worker
// busy ratio. Utilisation is left to PromQL (rate of bytes over the speed): a gauge from
// braid's own 1 s sample would show only the second before each scrape. Counters come from the raw
// totals, not the `clear stats` baseline: Prometheus counters must only go up.
#pragma once

#include <memory>

#include "control/metrics_registry.hpp"
#include "engine/engine_view.hpp"

namespace braid::engine {

void register_engine_metrics(control::MetricsRegistry& metrics, std::shared_ptr<EngineView> view);

}  // namespace braid::engine
