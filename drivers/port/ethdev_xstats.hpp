// A port's extended statistics by name (rte_eth_xstats_get_names + rte_eth_xstats_get): what the
// congestion sources (lib/sched/dpdk) and the bond's health counters read. Control thread only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace braid::drivers {

// Empty when the port has none or cannot be read.
std::vector<std::pair<std::string, std::uint64_t>> read_ethdev_xstats(std::uint16_t port_id);

}  // namespace braid::drivers
