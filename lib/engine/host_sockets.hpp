// The NUMA socket of each configured port and of the main lcore on this host, from sysfs, for
// what runs before EAL (braid --check --memory): a PCI device's numa_node, kAnySocket for
// vdevs, devices this host lacks and numa_node -1 (where the engine uses the main socket too).
#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"

namespace braid::engine {

std::vector<int> port_sockets_from_sysfs(const config::Config& config,
                                         const std::string& sysfs_root = "/sys");
// The node of CPU `cpu` (the node directory that lists it, else its package), 0 where sysfs
// says nothing.
int cpu_socket_from_sysfs(unsigned cpu, const std::string& sysfs_root = "/sys");

}  // namespace braid::engine
