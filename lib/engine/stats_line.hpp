// Human-readable counter reports: the periodic one-line foreground stats and the final report
// printed at shutdown. Pure formatting over counter snapshots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/counters.hpp"

namespace braid::engine {

struct PortStatsView {
  std::string name;
  std::uint16_t port_id = 0;  // index into the per-port counter arrays
  NicCounters nic;
};

// e.g. "[   2.0s] rx 1.52 Mpps tx 1.52 Mpps drops 0 pps | wire rx 0.76M tx 0.76M | ..."
std::string format_stats_line(double elapsed_s, double interval_s, const CounterTotals& now,
                              const CounterTotals& before, const std::vector<PortStatsView>& ports);

// Totals per port, drops by reason, NIC-side drops, and the accounting identity
// rx == tx + dropped + in flight with a verdict.
std::string format_final_report(const CounterTotals& totals,
                                const std::vector<PortStatsView>& ports);

std::string format_rate(double per_second);  // "12.3 Mpps" style, SI prefixes

}  // namespace braid::engine
