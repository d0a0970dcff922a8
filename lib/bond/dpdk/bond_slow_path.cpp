// The bond's Slow Protocols path on the control thread (doc/bond.md#the-slow-protocols-path):
// how each member's LACPDUs and marker PDUs reach it (an RX queue of their own the NIC steers
// them to, or the ring the workers divert them to), reading both, and sending LACPDUs and
// marker responses on each member's control TX queue.
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <array>
#include <stdexcept>

#include "bond/dpdk/bond.hpp"
#include "port/slow_protocols.hpp"

namespace braid::bond {
namespace {

constexpr std::uint16_t kSlowBurst = 32;
// Bursts read from one member's slow queue per poll: far above what LACP sends (802.1AX 6.4.4),
// low enough that a flood on that queue cannot keep the control thread from its other work.
constexpr unsigned kSlowQueueBurstsPerPoll = 4;
// Frames taken from the workers' ring per poll, all members together: a flood costs the
// protocol loop at most this many frees per iteration, and the rest waits for the next.
constexpr unsigned kSlowRingFramesPerPoll = 256;

}  // namespace

void Bond::set_up_slow_paths(std::uint64_t now_ns) {
  if (config_.slow_steering == config::SlowSteering::kOff) return;
  for (Member& member : members_) {
    drivers::EthdevPort& port = *member.port;
    const std::string refusal = port.steer_slow_protocols();
    if (refusal.empty()) {
      member.slow_queue = port.slow_rx_queue();
      log(now_ns, "member " + port.name() + ": Slow Protocols steered to RX queue " +
                      std::to_string(*member.slow_queue) + " (" + port.slow_steering_description() +
                      ")");
      continue;
    }
    if (config_.slow_steering == config::SlowSteering::kOn) {
      throw std::runtime_error("bond " + config_.name + ": member " + port.name() + " (driver " +
                               port.driver() +
                               ") cannot steer Slow Protocols frames to a queue of their own, "
                               "and slow_steering is on: " +
                               refusal + " (slow_steering: auto falls back to the workers' ring)");
    }
    // auto: the workers divert 0x8809 frames over the ring, as they do anyway for what a NIC
    // misses, and poll the queue too, so that nothing the NIC spreads onto it is stranded.
    port.hand_slow_queue_to_workers();
    log(now_ns,
        "member " + port.name() + ": Slow Protocols over the workers' ring (" + refusal + ")");
  }
}

void Bond::poll_slow_queues(std::uint64_t now_ns) {
  std::array<rte_mbuf*, kSlowBurst> frames;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (!members_[m].slow_queue) continue;
    const std::uint16_t port_id = members_[m].port->id();
    for (unsigned burst = 0; burst < kSlowQueueBurstsPerPoll; ++burst) {
      const std::uint16_t n =
          rte_eth_rx_burst(port_id, *members_[m].slow_queue, frames.data(), kSlowBurst);
      for (std::uint16_t i = 0; i < n; ++i) {
        if (drivers::is_slow_protocols(frames[i])) {
          ++counters_.slow_rx_steered;
          on_slow_frame(m, frames[i], now_ns);
          continue;
        }
        // A NIC whose steering rule also matched LLDP (or spread it there): LLDP takes it.
        if (on_lldp_frame(m, frames[i], now_ns)) continue;
        if (counters_.slow_queue_misdirected++ == 0) {
          log(now_ns, "member " + members_[m].port->name() +
                          ": a frame that is not Slow Protocols arrived on the slow queue; "
                          "dropped and counted as slow_queue_misdirected");
        }
      }
      rte_pktmbuf_free_bulk(frames.data(), n);
      if (n < kSlowBurst) break;
    }
  }
}

bool Bond::drain_slow_ring(std::uint64_t now_ns) {
  std::array<rte_mbuf*, kSlowBurst> frames;
  unsigned taken = 0;
  while (taken < kSlowRingFramesPerPoll) {
    const unsigned n = rte_ring_sc_dequeue_burst(
        slow_ring_, reinterpret_cast<void**>(frames.data()), kSlowBurst, nullptr);
    if (n == 0) return false;
    taken += n;
    for (unsigned i = 0; i < n; ++i) {
      std::size_t member = members_.size();
      for (std::size_t m = 0; m < members_.size(); ++m) {
        if (members_[m].port->id() == frames[i]->port) member = m;
      }
      // The workers put LLDPDUs on the same ring (bond_datapath.hpp).
      if (on_lldp_frame(member, frames[i], now_ns)) continue;
      if (bfd_ && !drivers::is_slow_protocols(frames[i])) {  // the workers' BFD divert
        bfd_->on_frame(
            member, ByteSpan(rte_pktmbuf_mtod(frames[i], const std::uint8_t*), frames[i]->data_len),
            now_ns);
        continue;
      }
      ++counters_.slow_rx_diverted;
      on_slow_frame(member, frames[i], now_ns);
    }
    rte_pktmbuf_free_bulk(frames.data(), n);
  }
  if (rte_ring_count(slow_ring_) == 0) return false;
  ++counters_.slow_ring_budget_hits;
  return true;
}

// Both paths end here: a member's LACPDU or marker PDU for the LACP machines, within the
// member's rate limit.
void Bond::on_slow_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns) {
  if (!lacp_ || member >= members_.size()) {
    ++counters_.slow_frames_ignored;
    return;
  }
  const auto* bytes = rte_pktmbuf_mtod(frame, const std::uint8_t*);
  std::atomic<std::uint64_t>& partner_source = partner_sources_[member];
  switch (members_[member].slow_policer.admit(
      bytes, frame->data_len, partner_source.load(std::memory_order_relaxed), now_ns)) {
    case SlowVerdict::kAccept:
      break;
    case SlowVerdict::kPoliced:
      ++members_[member].slow_policed;
      ++counters_.slow_policed;
      return;
    case SlowVerdict::kUnsupported:
      ++members_[member].slow_unsupported;
      ++counters_.slow_unsupported;
      return;
  }
  lacp::LacpSystem& system = lacp_->system();
  const lacp::PortCounters before = system.counters(member);
  system.on_frame(member, ByteSpan(bytes, frame->data_len), now_ns);
  const lacp::PortCounters& after = system.counters(member);
  // The partner's source is the one whose LACPDUs keep the member collecting: a forged
  // LACPDU names another partner and takes the member out of sync, so it never becomes it.
  if (!lacp_->collecting(member)) {
    partner_source.store(0, std::memory_order_relaxed);
  } else if (after.lacpdu_rx != before.lacpdu_rx &&
             after.lacpdu_rx_ignored == before.lacpdu_rx_ignored) {
    partner_source.store(source_address_key(bytes), std::memory_order_relaxed);
  }
}

}  // namespace braid::bond
