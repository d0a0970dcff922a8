// Member health counters of an mlx5 NIC (ConnectX-4..7): the kernel netdev's (mlx5e) ethtool
// stats, which count at the PHY what the PMD's xstats do not see (mlx5 is bifurcated: the
// netdev stays while DPDK runs the port; drivers/congestion/ethtool_stats.hpp reads it):
//   crc             rx_crc_errors_phy   over rx_packets_phy + rx_crc_errors_phy (rx_packets_phy
//                                       leaves out frames that failed their FCS)
//   symbol          rx_symbol_err_phy   over the same frames
//   fec_corrected   rx_corrected_bits_phy, else the sum of rx_err_lane_<n>_phy (bits in error
//                   per lane before FEC), over the same frames
//   discards        rx_discards_phy     over rx_packets_phy
// A counter the netdev lacks (or a netdev that cannot be read) is logged once and its signal is
// absent: the generic ethdev source's value stays (Bond::read_health_counters overlays this).
// The names are configurable so that the source can be tested against any netdev.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "congestion/source.hpp"
#include "health/member_health.hpp"

namespace braid::drivers {

struct Mlx5HealthNames {
  std::string packets = "rx_packets_phy";
  std::string crc = "rx_crc_errors_phy";
  std::string symbol = "rx_symbol_err_phy";
  std::string corrected_bits = "rx_corrected_bits_phy";
  std::string lane_prefix = "rx_err_lane_";  // rx_err_lane_0_phy .. rx_err_lane_7_phy
  std::string lane_suffix = "_phy";
  std::string discards = "rx_discards_phy";
};

// Where a source's "logged once" lines go (braid.bond rte_log in braid; a vector in tests).
using HealthLog = std::function<void(const std::string& line)>;

// Says each distinct line once.
class LogOnce {
 public:
  explicit LogOnce(HealthLog log) : log_(std::move(log)) {}
  void operator()(const std::string& line);

 private:
  HealthLog log_;
  std::vector<std::string> said_;
};

class Mlx5HealthSource {
 public:
  Mlx5HealthSource(std::string netdev, congestion::EthtoolReader ethtool, HealthLog log,
                   Mlx5HealthNames names = {});
  // Sets the signals it has counters for in `snapshot` and leaves the others as they are.
  void read(health::CounterSnapshot& snapshot);
  const std::string& netdev() const { return netdev_; }

 private:
  std::string netdev_;
  congestion::EthtoolReader ethtool_;
  LogOnce log_;
  Mlx5HealthNames names_;
};

}  // namespace braid::drivers
