#include "sched/dpdk/ethdev_xstats.hpp"

#include "port/ethdev_xstats.hpp"

namespace braid::sched {

congestion::Xstats read_ethdev_xstats(std::uint16_t port_id) {
  return drivers::read_ethdev_xstats(port_id);
}

}  // namespace braid::sched
