// Human-readable counter reports: the periodic one-line foreground stats and the final report
// printed at shutdown. Pure formatting over counter snapshots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "datapath/counters.hpp"

namespace braid::engine {

struct PortStatsView {
  std::string name;
  std::uint16_t port_id = 0;  // index into the per-port counter arrays
  datapath::NicCounters nic;
  std::string bond;     // the bond the port is a member of; empty for a port of its own
  bool looped = false;  // one end of an in-process virtual cable: braid sent what it receives
};

// Fills `bond` and `looped` of each port (matched by name) from the configuration.
void describe_ports(const config::Config& config, std::vector<PortStatsView>& ports);

inline constexpr std::size_t kStatsLineColumns = 80;

// The periodic foreground report: a head line with the offered load (what entered braid from
// outside: a looped port's receptions are braid's own transmissions, so they are not counted
// twice), then one line per bond (its rx and tx, then rx/tx per member) and one for the ports
// of their own, wrapped so that no line is wider than kStatsLineColumns. No trailing newline.
//   [    2.0s] offered 1.52Mpps delivered 1.52Mpps dropped 0pps
//     uplink rx 0 tx 1.52M: m0 0/381k m1 0/381k m2 0/381k m3 0/381k
//     ports rx/tx: wire 1.52M/0 sink 0/1.52M
std::string format_stats_line(double elapsed_s, double interval_s,
                              const datapath::CounterTotals& now,
                              const datapath::CounterTotals& before,
                              const std::vector<PortStatsView>& ports);

// Totals per port, drops by reason, NIC-side drops, and the accounting identity
// rx == tx + dropped + in flight with a verdict.
std::string format_final_report(const datapath::CounterTotals& totals,
                                const std::vector<PortStatsView>& ports);

std::string format_rate(double per_second);  // "12.3 Mpps" style, SI prefixes

}  // namespace braid::engine
