#include "engine/stats_line.hpp"

#include <cstdio>

namespace braid::engine {
namespace {

std::string format_count(double value) {
  char text[32];
  if (value >= 1e9) {
    std::snprintf(text, sizeof text, "%.2fG", value / 1e9);
  } else if (value >= 1e6) {
    std::snprintf(text, sizeof text, "%.2fM", value / 1e6);
  } else if (value >= 1e3) {
    std::snprintf(text, sizeof text, "%.1fk", value / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f", value);
  }
  return text;
}

}  // namespace

std::string format_rate(double per_second) {
  return format_count(per_second) + "pps";
}

std::string format_stats_line(double elapsed_s, double interval_s, const CounterTotals& now,
                              const CounterTotals& before,
                              const std::vector<PortStatsView>& ports) {
  const double seconds = interval_s > 0 ? interval_s : 1.0;
  auto rate = [&](std::uint64_t a, std::uint64_t b) {
    return static_cast<double>(a - b) / seconds;
  };
  char head[48];
  std::snprintf(head, sizeof head, "[%7.1fs]", elapsed_s);
  std::string line = head;
  line += " rx " + format_rate(rate(now.rx(), before.rx()));
  line += " tx " + format_rate(rate(now.tx(), before.tx()));
  line += " drop " + format_rate(rate(now.dropped(), before.dropped()));
  for (const PortStatsView& port : ports) {
    line += " | " + port.name + " rx " +
            format_count(rate(now.rx_packets[port.port_id], before.rx_packets[port.port_id])) +
            " tx " +
            format_count(rate(now.tx_packets[port.port_id], before.tx_packets[port.port_id]));
  }
  for (std::size_t r = 0; r < kDropReasonCount; ++r) {
    if (now.drops[r] != before.drops[r]) {
      line += " | " + std::string(kDropReasonNames[r]) + " " +
              format_count(rate(now.drops[r], before.drops[r])) + "/s";
    }
  }
  return line;
}

std::string format_final_report(const CounterTotals& totals,
                                const std::vector<PortStatsView>& ports) {
  std::string report = "final counters:\n";
  char line[256];
  for (const PortStatsView& port : ports) {
    std::snprintf(line, sizeof line,
                  "  port %-10s rx %14llu tx %14llu   nic: rx_missed %llu rx_no_mbuf %llu "
                  "rx_errors %llu tx_errors %llu\n",
                  port.name.c_str(),
                  static_cast<unsigned long long>(totals.rx_packets[port.port_id]),
                  static_cast<unsigned long long>(totals.tx_packets[port.port_id]),
                  static_cast<unsigned long long>(port.nic.rx_missed),
                  static_cast<unsigned long long>(port.nic.rx_no_mbuf),
                  static_cast<unsigned long long>(port.nic.rx_errors),
                  static_cast<unsigned long long>(port.nic.tx_errors));
    report += line;
  }
  report += "  drops:";
  for (std::size_t r = 0; r < kDropReasonCount; ++r) {
    report += " " + std::string(kDropReasonNames[r]) + "=" + std::to_string(totals.drops[r]);
  }
  report += "\n";
  std::snprintf(line, sizeof line,
                "  accounting: rx %llu = tx %llu + dropped %llu + to control %llu + in flight "
                "%llu: %s\n",
                static_cast<unsigned long long>(totals.rx()),
                static_cast<unsigned long long>(totals.tx()),
                static_cast<unsigned long long>(totals.dropped()),
                static_cast<unsigned long long>(totals.to_control),
                static_cast<unsigned long long>(totals.buffered),
                totals.balanced() ? "balanced" : "MISMATCH");
  report += line;
  return report;
}

}  // namespace braid::engine
