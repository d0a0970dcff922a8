#include "bond/dpdk/member_health_sources.hpp"

#include <rte_dev.h>
#include <rte_ethdev.h>

#include "congestion/ethtool_stats.hpp"
#include "log/log_types.hpp"

namespace braid::bond {

MemberHealthSources::MemberHealthSources(const drivers::EthdevPort& port, std::size_t member,
                                         const config::BondConfig& bond) {
  drivers::HealthLog log = [bond_name = bond.name,
                            port_name = port.name()](const std::string& line) {
    BRAID_LOG_TO(kBond, WARNING, "bond %s: member %s health: %s\n", bond_name.c_str(),
                 port_name.c_str(), line.c_str());
  };
  const config::CongestionConfig& names = bond.scheduler.congestion;
  if (port.is_mlx5()) {
    std::string netdev = member < names.netdevs.size() ? names.netdevs[member] : "";
    if (netdev.empty()) {
      rte_eth_dev_info info{};
      const std::string pci = rte_eth_dev_info_get(port.id(), &info) == 0 && info.device != nullptr
                                  ? rte_dev_name(info.device)
                                  : "";
      const std::vector<std::string> found = congestion::pci_netdevs("/sys", pci);
      if (!found.empty()) netdev = found.front();
    }
    if (netdev.empty()) {
      log("no kernel netdev found for the mlx5 PHY counters (name it in "
          "scheduler.congestion.netdevs); the ethdev counters stay");
    } else {
      mlx5_ =
          std::make_unique<drivers::Mlx5HealthSource>(netdev, congestion::read_ethtool_stats, log);
    }
  }
  if (member < names.rdma_devices.size() && !names.rdma_devices[member].empty())
    roce_ = std::make_unique<drivers::RoceHealthSource>(names.sysfs_root,
                                                        names.rdma_devices[member], log);
}

void MemberHealthSources::overlay(health::CounterSnapshot& snapshot) {
  if (mlx5_) mlx5_->read(snapshot);
  if (roce_) {
    if (const std::optional<health::CounterSample> sample = roce_->read())
      snapshot[static_cast<std::size_t>(health::Signal::kRoceRetransmit)] = *sample;
  }
}

}  // namespace braid::bond
