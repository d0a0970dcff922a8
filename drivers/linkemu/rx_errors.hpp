// Receive errors on an emulated member link: an RX callback on every RX queue of a port takes a
// configurable fraction of the frames it receives as FCS (CRC) errors, frees them, and counts
// them, as a NIC counts frames that fail their FCS check and never hands them to the driver's
// caller. The count is published in link_registry as the port's `rx_crc_errors` xstat, which the
// bond's generic health source reads like a NIC's (lib/health/ethdev_counters.hpp). net_ring
// counts the bad frames in ipackets (its RX burst runs before the callback), so the health rate
// reads errors / (ipackets + errors): the configured fraction, a little low.
//
// Callbacks run on the workers that poll the port; set_error_fraction may be called from any
// thread. Construct after the port's queues are set up (braid's Engine does it), destroy after
// no worker polls the port any more (Engine::stop()).
#pragma once

#include <rte_ethdev.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "linkemu/link_registry.hpp"

namespace braid::linkemu {

class RxErrorInjector {
 public:
  explicit RxErrorInjector(std::uint16_t port_id, double error_fraction = 0.0);
  ~RxErrorInjector();
  RxErrorInjector(const RxErrorInjector&) = delete;
  RxErrorInjector& operator=(const RxErrorInjector&) = delete;

  // From now on this fraction (0..1) of received frames is taken as CRC errors.
  void set_error_fraction(double fraction);
  std::uint64_t crc_errors() const { return publication_.crc_errors(); }

 private:
  static std::uint16_t on_receive(std::uint16_t port, std::uint16_t queue, rte_mbuf** packets,
                                  std::uint16_t count, std::uint16_t max, void* user);

  std::uint16_t port_id_;
  std::vector<const rte_eth_rxtx_callback*> callbacks_;
  // Errors per 2^32 frames, and a counter of frames seen: every frame whose share of the error
  // budget crosses an integer is bad, so the fraction is exact over any run, without a random
  // number per frame on the workers.
  std::atomic<std::uint64_t> threshold_{0};
  std::atomic<std::uint64_t> credit_{0};
  RxErrorPublication publication_;
};

}  // namespace braid::linkemu
