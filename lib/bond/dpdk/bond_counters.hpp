// What a bond's control side counts (show bond, metrics): tables, links, the Slow Protocols
// path, the frames it sent on the members' control queues.
#pragma once

#include <cstdint>

namespace braid::bond {

struct BondCounters {
  std::uint64_t tables_published = 0;
  std::uint64_t buckets_moved = 0;
  std::uint64_t link_changes = 0;
  std::uint64_t slow_rx_steered = 0;      // Slow Protocols frames read from members' slow queues
  std::uint64_t slow_rx_diverted = 0;     // ... taken from the ring the workers divert them to
  std::uint64_t slow_frames_ignored = 0;  // LACPDUs seen in static / active-backup mode
  // Dropped: frames on a slow queue that are not Slow Protocols (a NIC that mis-steers). The
  // control thread cannot forward them (it owns no worker's TX queue).
  std::uint64_t slow_queue_misdirected = 0;
  // Dropped: Slow Protocols frames over a member's rate limit (slow_policer.hpp), on the
  // protocol loop. Workers police before the ring as well (drop reason slow_policed).
  std::uint64_t slow_policed = 0;
  // Dropped: Slow Protocols frames of a subtype other than LACP and Marker (OAM, ESMC) that
  // reached the protocol loop (from a steered queue; workers drop them as slow_unsupported).
  std::uint64_t slow_unsupported = 0;
  // Polls that left frames on the ring for the next one (their budget ran out: a flood).
  std::uint64_t slow_ring_budget_hits = 0;
  std::uint64_t control_tx = 0;         // LACPDUs, marker responses, BFD packets, LLDPDUs sent
  std::uint64_t control_tx_failed = 0;  // ... that the member's control TX queue refused
  std::uint64_t control_no_mbuf = 0;    // ... for which the control pool had no mbuf
  std::uint64_t goodbye_tx = 0;         // out-of-sync LACPDUs as members left service
  std::uint64_t lldp_rx = 0;            // LLDPDUs from the ring or a slow queue (bond_lldp.hpp)
};

}  // namespace braid::bond
