// A Linux netdev's ethtool statistics (what `ethtool -S <ifname>` prints), read through the
// SIOCETHTOOL ioctl, and the netdevs of a PCI function from sysfs. mlx5 is a bifurcated driver:
// while DPDK runs the port, its kernel netdev (mlx5e) stays, and that netdev's ethtool stats are
// the only place with the per-priority PFC pause counters (the mlx5 PMD's xstats have none).
#pragma once

#include <string>
#include <vector>

#include "congestion/source.hpp"

namespace braid::congestion {

// ETHTOOL_GSSET_INFO (ETH_SS_STATS) for the count, ETHTOOL_GSTRINGS for the names and
// ETHTOOL_GSTATS for the values, on an AF_INET datagram socket. Needs no privilege. Never throws:
// a netdev that does not exist or has no statistics gives an empty `stats` and an `error` that
// names the netdev, the request and the reason.
EthtoolStats read_ethtool_stats(const std::string& ifname);

// The netdevs of a PCI function: the entries of <sys_root>/bus/pci/devices/<pci_address>/net/,
// sorted; empty when there is none (a function bound to vfio-pci has none). mlx5 in switchdev mode
// lists the uplink and its representors here, so there can be several.
std::vector<std::string> pci_netdevs(const std::string& sys_root, const std::string& pci_address);

}  // namespace braid::congestion
