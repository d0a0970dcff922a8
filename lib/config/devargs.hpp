// A port's device string ("net_af_packet0,iface=veth0,qpairs=2"): the driver name before the
// first comma, then key=value device arguments. Read here so that `braid --check` can say what
// a PMD would refuse at start-up without starting EAL.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace braid::config {

// net_af_packet opens one queue pair unless its device string says qpairs=N
// (rte_eth_af_packet.c: qpairs defaults to 1); virtio_user likewise with queues=N
// (virtio_user_ethdev.c: queues defaults to 1).
inline constexpr unsigned kDefaultQueuePairs = 1;

bool is_af_packet_device(std::string_view device);
bool is_virtio_user_device(std::string_view device);
bool is_tap_device(std::string_view device);
// The value of `key=` in the device arguments, or nullopt when absent.
std::optional<std::string> devarg(std::string_view device, std::string_view key);
// The device argument that sets how many queue pairs a vdev opens ("qpairs" for net_af_packet,
// "queues" for virtio_user), or empty for a driver that opens as many as it is asked for.
std::string_view queue_pairs_devarg(std::string_view device);
// The queue pairs such a device string asks for (default 1); nullopt when the value is not a
// number (the PMD refuses it).
std::optional<unsigned> device_queue_pairs(std::string_view device);

// Why a port cannot have `tx_queues` TX queues when its device offers `device_max`: one per
// worker and, with `control_queue`, one for its bond's LACPDUs; for net_af_packet and
// virtio_user, the qpairs= or queues= to add. Start-up (EthdevPort) and --check say the same.
std::string tx_queue_shortfall(unsigned tx_queues, bool control_queue, unsigned device_max,
                               std::string_view device);

}  // namespace braid::config
