// Congestion inputs of one member as plain numbers: the cumulative counters a source reads
// (drivers/congestion: mlx5's netdev ethtool stats and RDMA hw_counters, generic xstats,
// simulated), and what one period's deltas say about the member: the fraction of the period it was
// paused, the fraction of its packets that came back marked (ECN / CNP), the fraction it discarded.
#pragma once

#include <cstdint>

namespace braid::sched {

struct CongestionCounters {
  // Which fields the source could read; a missing one contributes nothing.
  enum Field : std::uint32_t {
    kPauseFrames = 1u << 0,      // PFC pause frames received: our TX was told to stop
    kPauseDurationUs = 1u << 1,  // time spent paused, where the NIC reports it
    kEcnMarked = 1u << 2,        // ECN-marked packets (RoCE notification point)
    kCnp = 1u << 3,              // congestion notification packets handled / sent
    kDiscards = 1u << 4,         // packets the port discarded
    kTxPackets = 1u << 5,        // packets sent: the denominator for marks and discards
  };
  std::uint32_t present = 0;
  std::uint64_t pause_frames = 0;
  std::uint64_t pause_duration_us = 0;
  std::uint64_t ecn_marked = 0;
  std::uint64_t cnp = 0;
  std::uint64_t discards = 0;
  std::uint64_t tx_packets = 0;

  bool has(Field field) const { return (present & field) != 0; }
};

struct ScoreSettings {
  // Without a duration counter, one pause frame is taken to stop the link this long: 65535
  // quanta of 512 bit times is 335 us at 100 Gbit/s, switches send far shorter ones (XOFF/XON).
  std::uint32_t pause_quanta_us = 50;
  // A marked fraction of 1/mark_gain counts as full congestion (10: 10% marked -> score 1).
  std::uint32_t mark_gain = 10;
};

struct CongestionInputs {
  double pause_fraction = 0;    // 0..1 of the period
  double mark_fraction = 0;     // 0..1, after mark_gain
  double discard_fraction = 0;  // 0..1 of packets offered
  // The worst of the three: each alone means "this member carries less than it is offered".
  double score() const;
};

CongestionInputs congestion_inputs(const CongestionCounters& before,
                                   const CongestionCounters& after, std::uint64_t period_ns,
                                   const ScoreSettings& settings);

}  // namespace braid::sched
