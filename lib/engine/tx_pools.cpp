#include "engine/tx_pools.hpp"

#include <set>

namespace braid::engine {

std::vector<bool> single_pool_tx(const std::vector<int>& pool_of_port,
                                 const std::vector<std::vector<std::size_t>>& sources_of_port) {
  std::vector<bool> single(sources_of_port.size(), true);
  for (std::size_t p = 0; p < sources_of_port.size(); ++p) {
    std::set<int> pools;
    for (const std::size_t source : sources_of_port[p]) {
      if (source < pool_of_port.size()) pools.insert(pool_of_port[source]);
    }
    single[p] = pools.size() <= 1;
  }
  return single;
}

}  // namespace braid::engine
