// Congestion inputs of one member as plain numbers: the cumulative counters a source reads
// (drivers/congestion: mlx5's netdev ethtool stats and RDMA hw_counters, generic xstats,
// simulated), and what one period's deltas say about the member: the fraction of the period it was
// paused, the fraction of its packets that came back marked (ECN / CNP), the fraction it discarded.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace braid::sched {

inline constexpr std::size_t kPfcPriorities = 8;  // IEEE 802.1Qbb: one per 802.1p priority

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
  // PFC pauses per priority p, for the priorities the bond uses (its classes' and its own):
  // bit p of priority_frames_read / priority_duration_read says priority p's counter was read.
  // pause_frames and pause_duration_us above are the bond priority's
  // (scheduler.congestion.priority), so a reader of that one priority needs nothing else.
  std::uint8_t priority_frames_read = 0;
  std::uint8_t priority_duration_read = 0;
  std::array<std::uint64_t, kPfcPriorities> priority_pause_frames{};
  std::array<std::uint64_t, kPfcPriorities> priority_pause_duration_us{};
  // Packets sent on priority p (mlx5e's tx_prio<N>_packets; bit p of priority_tx_read: read):
  // what the PFC storm watchdog judges a priority's progress by, where the NIC counts it (a
  // priority stopped by a storm sends nothing while the others' traffic keeps tx_packets rising).
  std::uint8_t priority_tx_read = 0;
  std::array<std::uint64_t, kPfcPriorities> priority_tx_packets{};

  bool has(Field field) const { return (present & field) != 0; }
  void set_priority_pause_frames(std::size_t priority, std::uint64_t frames) {
    priority_pause_frames.at(priority) = frames;
    priority_frames_read = static_cast<std::uint8_t>(priority_frames_read | 1u << priority);
  }
  void set_priority_pause_duration_us(std::size_t priority, std::uint64_t duration_us) {
    priority_pause_duration_us.at(priority) = duration_us;
    priority_duration_read = static_cast<std::uint8_t>(priority_duration_read | 1u << priority);
  }
  void set_priority_tx_packets(std::size_t priority, std::uint64_t packets) {
    priority_tx_packets.at(priority) = packets;
    priority_tx_read = static_cast<std::uint8_t>(priority_tx_read | 1u << priority);
  }
  // Packets sent on `priority`: its own count where read, else every priority's (tx_packets).
  std::uint64_t tx_packets_on(std::size_t priority) const {
    return priority < kPfcPriorities && ((priority_tx_read >> priority) & 1u) != 0
               ? priority_tx_packets[priority]
               : tx_packets;
  }
};

// The counters as traffic on PFC priority `priority` sees them: that priority's pauses in the
// pause fields (absent where the source did not read them), the member's ECN, CNP, discard and
// TX counters as they are. The bond's own priority sees them unchanged.
CongestionCounters on_priority(const CongestionCounters& counters, std::size_t priority,
                               std::size_t bond_priority);

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
