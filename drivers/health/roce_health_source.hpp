// The roce_retransmit health signal of a member with an RDMA device (mlx5 RoCE): the port's
// hw_counters in sysfs, <root>/<device>/ports/<port>/hw_counters/{out_of_sequence,
// packet_seq_err, local_ack_timeout_err} (the retransmissions operators watch as "retry
// count"), summed, over the packets the port sent, <...>/ports/<port>/counters/
// port_xmit_packets. Counters the device lacks are logged once and left out of the sum; with
// none of them, or no packet count, the signal is absent. The root is configurable
// (congestion.sysfs_root's default, /sys/class/infiniband), so a test reads a real directory tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivers/health/mlx5_health_source.hpp"
#include "health/error_rate.hpp"

namespace braid::drivers {

struct RoceHealthNames {
  std::vector<std::string> retransmits = {"out_of_sequence", "packet_seq_err",
                                          "local_ack_timeout_err"};
  std::string packets = "port_xmit_packets";
};

class RoceHealthSource {
 public:
  // `device`: "mlx5_0" or "mlx5_0:2" (device[:port], port 1 by default).
  RoceHealthSource(std::string sysfs_root, const std::string& device, HealthLog log,
                   RoceHealthNames names = {});
  std::optional<health::CounterSample> read();
  const std::string& port_dir() const { return port_dir_; }

 private:
  std::optional<std::uint64_t> read_counter(const std::string& path);

  std::string port_dir_;
  LogOnce log_;
  RoceHealthNames names_;
};

}  // namespace braid::drivers
