// The bond's Prometheus metrics: per member its link, speed, traffic (packets and bytes), weights
// and buckets; per bond its moves, Slow Protocols path and drops; per LACP member its state bits,
// mux state and PDU counters (doc/console.md lists them). Rendered on the protocol loop.
#pragma once

#include <vector>

#include "control/metrics_registry.hpp"

namespace braid::bond {

class Bond;

void register_bond_metrics(control::MetricsRegistry& metrics, const std::vector<Bond*>& bonds);

}  // namespace braid::bond
