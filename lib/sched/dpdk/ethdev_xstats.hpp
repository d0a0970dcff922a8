// Reads a port's extended statistics by name (rte_eth_xstats_get_names + rte_eth_xstats_get),
// the input of the mlx5 and xstats congestion sources. Control thread only.
#pragma once

#include <cstdint>

#include "congestion/source.hpp"

namespace braid::sched {

congestion::Xstats read_ethdev_xstats(std::uint16_t port_id);

}  // namespace braid::sched
