// An emulated member link between a ring port and its peer, on the monotonic clock: what the
// port transmits (its net_ring TX ring) goes through a LinkEmulator (rate, queue, latency, loss,
// PFC-like pauses) and lands on the peer's RX ring, stamped with its arrival time in the mbuf's
// RX timestamp field, as a NIC with RX timestamping would stamp it. A TX callback on the port
// notes when each packet was handed to it, and the link takes it in at that time, not when it
// is next polled: a poller that runs late delays deliveries, never the link's service. Every packet
// the link does not deliver is freed and counted under its reason: queue full (the NIC's discard),
// lost on the wire, or the peer's ring full. The link attaches itself to its port in link_registry,
// so braid reads its queue depth and congestion counters like a NIC's.
//
// One thread owns a RingLink and polls it (a test or benchmark harness, not a braid lcore).
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "linkemu/link_emulator.hpp"
#include "linkemu/link_registry.hpp"

namespace braid::linkemu {

struct RingLinkStats {
  std::uint64_t offered = 0;        // taken from the port
  std::uint64_t sent = 0;           // left the queue onto the wire
  std::uint64_t delivered = 0;      // on the peer's ring
  std::uint64_t dropped_queue = 0;  // the queue was full
  std::uint64_t lost = 0;           // lost on the wire (the loss setting)
  std::uint64_t peer_full = 0;      // arrived, but the peer's ring had no room
  std::uint64_t pause_frames = 0;
  std::uint64_t pause_ns = 0;
};

class RingLink {
 public:
  // Carries what port `port_id` sends on `from_port` (its TX ring; this link is its only
  // consumer) to `to_peer`. The port must be configured (its TX queues set up).
  RingLink(std::uint16_t port_id, rte_ring* from_port, rte_ring* to_peer,
           const LinkSettings& settings);
  // Detaches from the port and frees what the link still holds.
  ~RingLink();
  RingLink(const RingLink&) = delete;
  RingLink& operator=(const RingLink&) = delete;

  // Takes what the port sent, runs the link up to now and delivers what has arrived. Returns
  // the number of packets delivered.
  unsigned poll();

  // PFC-like pauses from now on, on `priorities` (link_emulator.hpp; by default link-level).
  void pause_for(std::uint64_t duration_ns, PriorityMask priorities = kLinkLevelPause);
  void pause_periodically(std::uint64_t every_ns, std::uint64_t length_ns,
                          PriorityMask priorities = kLinkLevelPause);
  void stop_pausing();

  RingLinkStats stats() const;
  // Packets the port accepted that are not yet delivered or dropped (its ring, the queue, the
  // wire): the "in flight" of an accounting check.
  std::uint64_t in_flight() const;
  std::uint32_t queue_depth() const;

  // When `packet` arrived on a RingLink's peer ring (monotonic ns); nullopt if it did not come
  // through one.
  static std::optional<std::uint64_t> arrival_ns(const rte_mbuf* packet);

 private:
  void deliver(std::uint64_t now_ns);
  static std::uint16_t note_handed(std::uint16_t port, std::uint16_t queue, rte_mbuf** packets,
                                   std::uint16_t count, void* user);

  std::uint16_t port_id_;
  std::vector<const rte_eth_rxtx_callback*> callbacks_;
  std::uint64_t offered_until_ns_ = 0;  // the link's time only moves forward
  rte_ring* from_port_;
  rte_ring* to_peer_;
  LinkEmulator<rte_mbuf*> link_;
  LinkPublication publication_;
  std::vector<Delivery<rte_mbuf*>> arrived_;
  std::vector<rte_mbuf*> lost_;
  std::uint64_t delivered_ = 0;
  std::uint64_t peer_full_ = 0;
};

}  // namespace braid::linkemu
