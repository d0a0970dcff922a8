// A port's NIC counters: rte_eth_stats and its extended statistics by name
// (rte_eth_xstats_get_names + rte_eth_xstats_get), what the stats line, metrics, LACP's receive
// check, the congestion sources (lib/sched/dpdk) and the bond's health counters read.
//
// One reader of a port's counters at a time: ixgbe and i40e accumulate clear-on-read registers
// without a lock, so two threads reading one port lose or double counts. The protocol loop reads
// through read_port_stats() / read_ethdev_xstats(), which never wait: while another thread
// (SlowReads: the health sample, `show port xstats`, whose reads may block on the kernel: mlx5's
// xstats are an ethtool ioctl under rtnl) reads the port, they return what they read last, so a
// counter pauses for one read and never goes back. That thread holds a CounterReadLock (waiting
// for the loop's short read) and reads with the *_held functions.
#pragma once

#include <rte_ethdev.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace braid::drivers {

using XstatList = std::vector<std::pair<std::string, std::uint64_t>>;

class CounterReadLock {
 public:
  enum class Wait { kNo, kYes };
  CounterReadLock(std::uint16_t port_id, Wait wait);
  ~CounterReadLock();
  CounterReadLock(const CounterReadLock&) = delete;
  CounterReadLock& operator=(const CounterReadLock&) = delete;
  bool held() const { return held_; }

 private:
  std::uint16_t port_id_;
  bool held_ = false;
};

// The protocol loop's reads (they never wait; see above). rte_eth_stats_get's return value, or 0
// with the last values read while another thread reads the port.
int read_port_stats(std::uint16_t port_id, rte_eth_stats& stats);
// Empty when the port has none or cannot be read.
XstatList read_ethdev_xstats(std::uint16_t port_id);

// With the port's CounterReadLock held.
int read_port_stats_held(std::uint16_t port_id, rte_eth_stats& stats);
XstatList read_ethdev_xstats_held(std::uint16_t port_id);

}  // namespace braid::drivers
