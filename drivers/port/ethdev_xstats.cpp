#include "port/ethdev_xstats.hpp"

#include <rte_ethdev.h>

namespace braid::drivers {

std::vector<std::pair<std::string, std::uint64_t>> read_ethdev_xstats(std::uint16_t port_id) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  const int count = rte_eth_xstats_get_names(port_id, nullptr, 0);
  if (count <= 0) return out;
  std::vector<rte_eth_xstat_name> names(static_cast<std::size_t>(count));
  std::vector<rte_eth_xstat> values(static_cast<std::size_t>(count));
  if (rte_eth_xstats_get_names(port_id, names.data(), count) != count ||
      rte_eth_xstats_get(port_id, values.data(), count) != count) {
    return out;
  }
  for (const rte_eth_xstat& value : values) {
    if (value.id < names.size()) out.emplace_back(names[value.id].name, value.value);
  }
  return out;
}

}  // namespace braid::drivers
