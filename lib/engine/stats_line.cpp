#include "engine/stats_line.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

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

void describe_ports(const config::Config& config, std::vector<PortStatsView>& ports) {
  // drivers/port/virtual_cable.hpp: "cable:NAME/a" and "cable:NAME/b" are both ends in braid.
  constexpr std::string_view kCablePrefix = "cable:";
  for (PortStatsView& view : ports) {
    for (const config::PortConfig& port : config.ports) {
      if (port.name == view.name) view.looped = port.device.starts_with(kCablePrefix);
    }
    for (const config::BondConfig& bond : config.bonds) {
      for (const std::string& member : bond.members) {
        if (member == view.name) view.bond = bond.name;
      }
    }
  }
}

namespace {

// Appends space-separated pieces to lines of at most kStatsLineColumns, continuing on an
// indented line when the next piece would not fit.
class Wrapped {
 public:
  explicit Wrapped(std::string& out) : out_(out) {}
  void start(std::string head) {
    if (!out_.empty()) out_ += "\n";
    line_start_ = out_.size();
    out_ += head;
  }
  void add(const std::string& piece) {
    if (out_.size() - line_start_ + 1 + piece.size() > kStatsLineColumns) {
      out_ += "\n";
      line_start_ = out_.size();
      out_ += "     ";
    } else {
      out_ += ' ';
    }
    out_ += piece;
  }

 private:
  std::string& out_;
  std::size_t line_start_ = 0;
};

}  // namespace

std::string format_stats_line(double elapsed_s, double interval_s,
                              const datapath::CounterTotals& now,
                              const datapath::CounterTotals& before,
                              const std::vector<PortStatsView>& ports) {
  const double seconds = interval_s > 0 ? interval_s : 1.0;
  auto rate = [&](std::uint64_t a, std::uint64_t b) {
    return static_cast<double>(a - b) / seconds;
  };
  auto rx = [&](const PortStatsView& port) {
    return rate(now.rx_packets[port.port_id], before.rx_packets[port.port_id]);
  };
  auto tx = [&](const PortStatsView& port) {
    return rate(now.tx_packets[port.port_id], before.tx_packets[port.port_id]);
  };
  double offered = 0;
  double delivered = 0;
  std::vector<std::string> bonds;
  for (const PortStatsView& port : ports) {
    if (!port.looped) {
      offered += rx(port);
      delivered += tx(port);
    }
    if (!port.bond.empty() && std::find(bonds.begin(), bonds.end(), port.bond) == bonds.end())
      bonds.push_back(port.bond);
  }
  std::string out;
  Wrapped lines(out);
  char head[48];
  std::snprintf(head, sizeof head, "[%7.1fs]", elapsed_s);
  lines.start(head);
  lines.add("offered " + format_rate(offered));
  lines.add("delivered " + format_rate(delivered));
  lines.add("dropped " + format_rate(rate(now.dropped(), before.dropped())));
  for (const std::string& bond : bonds) {
    double bond_rx = 0;
    double bond_tx = 0;
    std::vector<std::string> members;
    for (const PortStatsView& port : ports) {
      if (port.bond != bond) continue;
      bond_rx += rx(port);
      bond_tx += tx(port);
      members.push_back(port.name + " " + format_count(rx(port)) + "/" + format_count(tx(port)));
    }
    lines.start("  " + bond + " rx " + format_count(bond_rx) + " tx " + format_count(bond_tx) +
                ", rx/tx:");
    for (const std::string& member : members)
      lines.add(member);
  }
  bool own = false;
  for (const PortStatsView& port : ports) {
    if (!port.bond.empty()) continue;
    if (!own) lines.start("  ports rx/tx:");
    own = true;
    lines.add(port.name + " " + format_count(rx(port)) + "/" + format_count(tx(port)));
  }
  bool drops = false;
  for (std::size_t r = 0; r < datapath::kDropReasonCount; ++r) {
    if (now.drops[r] == before.drops[r]) continue;
    if (!drops) lines.start("  drops:");
    drops = true;
    lines.add(std::string(datapath::kDropReasonNames[r]) + " " +
              format_count(rate(now.drops[r], before.drops[r])) + "/s");
  }
  return out;
}

std::string format_final_report(const datapath::CounterTotals& totals,
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
  for (std::size_t r = 0; r < datapath::kDropReasonCount; ++r) {
    report +=
        " " + std::string(datapath::kDropReasonNames[r]) + "=" + std::to_string(totals.drops[r]);
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
