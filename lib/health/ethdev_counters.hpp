// The generic counter source: a member's error-rate signals from what every ethdev has
// (rte_eth_stats: ierrors, imissed, rx_nombuf over ipackets) and from xstats by name. Pure: the
// caller reads the port (the bond, on the protocol loop) and passes the numbers in.
//
//   rx_errors  ierrors out of ipackets + ierrors
//   discards   imissed + rx_nombuf out of ipackets + imissed + rx_nombuf
//   crc, symbol, fec_corrected, fec_uncorrected
//              the sum of the xstats named for the signal that the port has, out of ipackets +
//              those errors; none of them present: unavailable
//   any signal whose xstats are configured reads those instead (rx_errors and discards too)
// lacpdu_missed, bfd_missed and roce_retransmit come from elsewhere (the LACP machine, BFD, the
// RDMA device) and stay unavailable here. A NIC family with better counters gets a source of its
// own (mlx5: the kernel netdev's rx_crc_errors_phy, rx_symbol_err_phy, rx_corrected_bits_phy,
// rx_err_lane_*_phy, rx_discards_phy; doc/health.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "health/member_health.hpp"

namespace braid::health {

using XstatList = std::vector<std::pair<std::string, std::uint64_t>>;
using XstatNames = std::array<std::vector<std::string>, kSignalCount>;

struct EthdevCounters {
  bool stats_ok = false;  // rte_eth_stats_get answered
  std::uint64_t ipackets = 0;
  std::uint64_t ierrors = 0;
  std::uint64_t imissed = 0;
  std::uint64_t rx_nombuf = 0;
  XstatList xstats;
};

// The names read when the config names none for a signal.
XstatNames default_xstat_names();
// `configured[s]`: the config's list replaces the default for signal s.
XstatNames xstat_names(const std::array<std::vector<std::string>, kSignalCount>& lists,
                       const std::array<bool, kSignalCount>& configured);

CounterSnapshot ethdev_snapshot(const EthdevCounters& counters, const XstatNames& names);

}  // namespace braid::health
