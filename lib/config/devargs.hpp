// A port's device string ("net_af_packet0,iface=veth0,qpairs=2"): the driver name before the
// first comma, then key=value device arguments. Read here so that `braid --check` can say what
// a PMD would refuse at start-up without starting EAL.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace braid::config {

// net_af_packet opens one queue pair unless its device string says qpairs=N
// (rte_eth_af_packet.c: qpairs defaults to 1).
inline constexpr unsigned kAfPacketDefaultQpairs = 1;

bool is_af_packet_device(std::string_view device);
// The value of `key=` in the device arguments, or nullopt when absent.
std::optional<std::string> devarg(std::string_view device, std::string_view key);
// The queue pairs an af_packet device string asks for (qpairs=, default 1); nullopt when the
// value is not a number (the PMD refuses it).
std::optional<unsigned> af_packet_qpairs(std::string_view device);

// Why a port cannot have `tx_queues` TX queues when its device offers `device_max`: one per
// worker and, with `control_queue`, one for its bond's LACPDUs; for net_af_packet, the qpairs=
// to add. Start-up (EthdevPort) and --check say the same.
std::string tx_queue_shortfall(unsigned tx_queues, bool control_queue, unsigned device_max,
                               std::string_view driver, std::string_view device);

}  // namespace braid::config
