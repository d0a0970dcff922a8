// A member's NIC-family health counters, laid over the generic ethdev ones
// (Bond::read_health_counters): on an mlx5 port (driver net_mlx5), the kernel netdev's PHY
// counters (drivers/health/mlx5_health_source.hpp), the netdev named in the bond's
// scheduler.congestion.netdevs or found under /sys/bus/pci/devices/<pci>/net/; and where
// scheduler.congestion.rdma_devices names the member's RDMA device, its RoCE retransmissions
// (drivers/health/roce_health_source.hpp, under scheduler.congestion.sysfs_root). Anything
// missing is logged once and leaves the generic signal in place.
#pragma once

#include <memory>
#include <string>

#include "config/config.hpp"
#include "drivers/health/mlx5_health_source.hpp"
#include "drivers/health/roce_health_source.hpp"
#include "health/member_health.hpp"
#include "port/ethdev_port.hpp"

namespace braid::bond {

class MemberHealthSources {
 public:
  MemberHealthSources(const drivers::EthdevPort& port, std::size_t member,
                      const config::BondConfig& bond);
  void overlay(health::CounterSnapshot& snapshot);

 private:
  std::unique_ptr<drivers::Mlx5HealthSource> mlx5_;
  std::unique_ptr<drivers::RoceHealthSource> roce_;
};

}  // namespace braid::bond
