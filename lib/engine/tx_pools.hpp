// Which ports' TX queues only ever see mbufs of one mempool: where the device may free sent mbufs
// without looking at their pool (RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE returns a burst to the pool of
// its first mbuf; an mbuf of another pool then corrupts both). A TX queue sends what its port's
// sources received, each from the pool of its own socket: a bond member sends what the bond's
// host port received, the host port what every member received, a cross-connected port what its
// peer received. Pure, unit-tested.
#pragma once

#include <cstddef>
#include <vector>

namespace braid::engine {

// `pool_of_port[p]`: an id of the pool port p receives into; `sources_of_port[p]`: the ports
// whose received packets port p transmits. True where that is at most one pool.
std::vector<bool> single_pool_tx(const std::vector<int>& pool_of_port,
                                 const std::vector<std::vector<std::size_t>>& sources_of_port);

}  // namespace braid::engine
