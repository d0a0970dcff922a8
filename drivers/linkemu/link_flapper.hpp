// Carrier flaps on a port, after a FlapPattern (flap_pattern.hpp): poll() takes the port's
// link down and up with rte_eth_dev_set_link_down/up (net_ring implements both; braid sees the
// change as it sees a NIC's carrier, through its link polls or interrupts), so a test replays
// "a bad optic flapping every few seconds" end to end. Call poll() from the thread that drives
// the test, as often as the pattern's timing needs (each call applies the carrier state of
// `now_ns`); the port is left up when the flapper is destroyed.
#pragma once

#include <cstdint>

#include "linkemu/flap_pattern.hpp"

namespace braid::linkemu {

class LinkFlapper {
 public:
  LinkFlapper(std::uint16_t port_id, FlapPattern pattern, std::uint64_t start_ns);
  ~LinkFlapper();
  LinkFlapper(const LinkFlapper&) = delete;
  LinkFlapper& operator=(const LinkFlapper&) = delete;

  // Applies the carrier state the pattern has at `now_ns`. Returns true when it changed it.
  bool poll(std::uint64_t now_ns);
  bool carrier_up() const { return up_; }
  // Down transitions applied so far, and when the last one was.
  std::uint32_t flaps() const { return flaps_; }
  std::uint64_t last_down_ns() const { return last_down_ns_; }
  bool done(std::uint64_t now_ns) const { return now_ns >= pattern_.end_ns(start_ns_) && up_; }
  const FlapPattern& pattern() const { return pattern_; }

 private:
  std::uint16_t port_id_;
  FlapPattern pattern_;
  std::uint64_t start_ns_;
  bool up_ = true;
  std::uint32_t flaps_ = 0;
  std::uint64_t last_down_ns_ = 0;
};

}  // namespace braid::linkemu
