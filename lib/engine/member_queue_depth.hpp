// A bond member's transmit queue as its scheduler sees it (sched::QueueDepthFn), on the control
// thread: the sum of what every worker measured on its own TX queue (tx_queue_probe.hpp) when
// any of them could read descriptors; else the depth of a link emulator attached to the port
// (drivers/linkemu) plus what the workers buffer; else no depth (lqf then balances by load
// alone). Either way counted as of the oldest worker's last measurement.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/tx_queue_probe.hpp"
#include "sched/dpdk/bond_scheduler.hpp"

namespace braid::engine {

// `probes`: one per worker; `member_ports`: ethdev port id by member.
sched::QueueDepthFn member_queue_depth(std::vector<const TxQueueProbe*> probes,
                                       std::vector<std::uint16_t> member_ports);

}  // namespace braid::engine
