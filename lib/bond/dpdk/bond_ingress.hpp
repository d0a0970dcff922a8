// A bond member's RX burst as a worker sees it: Slow Protocols frames, BFD frames and (LLDP on)
// LLDPDUs diverted to the control thread over the bond's slow ring (each within its own rate
// limit), data frames passed on to the bond's peer port while the member collects, and the
// rest dropped and counted (not_collecting, or stopped while forwarding is stopped). Data frames
// are diverted even on a member whose NIC steers Slow Protocols to a queue of their own:
// whatever the NIC missed still reaches LACP.
#pragma once

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "bond/bfd_divert.hpp"
#include "bond/dpdk/bond_shared.hpp"
#include "bond/slow_policer.hpp"
#include "common/token_bucket.hpp"
#include "datapath/counters.hpp"
#include "datapath/tx_buffer.hpp"
#include "port/slow_protocols.hpp"

namespace braid::bond {

// Per (worker, member RX queue), LLDPDUs to the control thread (802.1AB): a neighbour sends one
// every msgTxInterval and at most txCreditMax (5) in a burst, a member has a few neighbours at
// most; anything beyond is a flood, dropped as lldp_policed before it reaches the ring.
inline constexpr std::uint64_t kLldpFramesPerSecond = 16;
inline constexpr std::uint64_t kLldpFramesBurst = 32;

class BondIngress {
 public:
  BondIngress(const BondShared& shared, MemberIndex member, std::uint16_t port_id,
              datapath::TxBuffer* peer_tx)
      : shared_(&shared),
        member_(member),
        port_id_(port_id),
        peer_tx_(peer_tx),
        slow_policer_(rte_get_tsc_hz()),
        bfd_policer_(rte_get_tsc_hz()),
        lldp_policer_(kLldpFramesPerSecond, rte_get_tsc_hz(), kLldpFramesBurst) {}

  // `forwarding` false (console `stop`): Slow Protocols frames still reach LACP, data frames
  // are dropped and counted as `stopped`.
  void receive(rte_mbuf** packets, std::uint16_t n, datapath::WorkerCounters& counters,
               bool forwarding = true) {
    const BondTable* table = shared_->publisher->current();
    std::array<rte_mbuf*, datapath::kMaxBurst> slow;
    std::array<rte_mbuf*, datapath::kMaxBurst> lldpdus;
    std::array<rte_mbuf*, datapath::kMaxBurst> refused;
    std::uint16_t data = 0, slow_count = 0, lldp_count = 0, refused_count = 0;
    const bool collecting = table->collecting[member_] && forwarding;
    const BfdDivertRule bfd = shared_->bfd;
    const std::uint64_t local_mac =
        bfd.udp_port != 0 ? shared_->bfd_local_macs[member_].load(std::memory_order_relaxed) : 0;
    std::array<rte_mbuf*, datapath::kMaxBurst> bfd_frames;
    std::uint16_t bfd_count = 0;
    for (std::uint16_t i = 0; i < n; ++i) {
      rte_mbuf* packet = packets[i];
      // One read of the EtherType; a data frame costs one more compare than before LLDP.
      const std::uint16_t ethertype = drivers::outer_ethertype(packet);
      if (ethertype == flow::kEtherTypeSlowProtocols) {
        packet->port = port_id_;  // not every PMD sets it (net_ring does not); the control
                                  // thread finds the member by it
        slow[slow_count++] = packet;
      } else if (bfd.udp_port != 0 && is_bfd_frame(rte_pktmbuf_mtod(packet, const std::uint8_t*),
                                                   packet->data_len, bfd, local_mac)) {
        packet->port = port_id_;
        bfd_frames[bfd_count++] = packet;
      } else if (ethertype == drivers::kEtherTypeLldp && shared_->lldp) {
        packet->port = port_id_;
        lldpdus[lldp_count++] = packet;
      } else if (collecting) {
        packets[data++] = packet;
      } else {
        refused[refused_count++] = packet;
      }
    }
    if (slow_count != 0) to_control(slow.data(), slow_count, counters);
    if (bfd_count != 0) bfd_to_control(bfd_frames.data(), bfd_count, counters);
    if (lldp_count != 0) lldp_to_control(lldpdus.data(), lldp_count, counters);
    if (refused_count != 0) {
      const datapath::DropReason reason =
          forwarding ? datapath::DropReason::kNotCollecting : datapath::DropReason::kStopped;
      counters.drops[static_cast<std::size_t>(reason)].add(refused_count);
      rte_pktmbuf_free_bulk(refused.data(), refused_count);
    }
    if (data != 0) peer_tx_->add(packets, data);
  }

 private:
  // Per (worker, member RX queue): a flood of 0x8809 frames fills the ring no further than the
  // policer lets it, so it can crowd out neither another member's LACPDUs there nor (from
  // another source, or of another subtype) this member's partner's (slow_policer.hpp).
  void to_control(rte_mbuf** slow, std::uint16_t count, datapath::WorkerCounters& counters) {
    const std::uint64_t now = rte_rdtsc();
    const std::uint64_t partner = shared_->partner_sources[member_].load(std::memory_order_relaxed);
    std::array<rte_mbuf*, datapath::kMaxBurst> dropped;
    std::uint16_t allowed = 0, policed = 0, unsupported = 0;
    for (std::uint16_t i = 0; i < count; ++i) {
      rte_mbuf* frame = slow[i];
      switch (slow_policer_.admit(rte_pktmbuf_mtod(frame, const std::uint8_t*), frame->data_len,
                                  partner, now)) {
        case SlowVerdict::kAccept:
          slow[allowed++] = frame;
          continue;
        case SlowVerdict::kPoliced:
          ++policed;
          break;
        case SlowVerdict::kUnsupported:
          ++unsupported;
          break;
      }
      dropped[policed + unsupported - 1] = frame;
    }
    if (policed + unsupported != 0) {
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kSlowPoliced)].add(policed);
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kSlowUnsupported)].add(
          unsupported);
      rte_pktmbuf_free_bulk(dropped.data(), policed + unsupported);
    }
    enqueue_to_control(slow, allowed, counters);
  }

  // BFD frames (bfd_divert.hpp) over the same ring, under a limit of their own.
  void bfd_to_control(rte_mbuf** frames, std::uint16_t count, datapath::WorkerCounters& counters) {
    const std::uint64_t now = rte_rdtsc();
    const std::uint64_t peer = shared_->bfd_peer_sources[member_].load(std::memory_order_relaxed);
    police_to_control(
        frames, count, datapath::DropReason::kBfdPoliced, counters, [&](const rte_mbuf* frame) {
          return bfd_policer_.admit(rte_pktmbuf_mtod(frame, const std::uint8_t*), peer, now);
        });
  }

  // LLDPDUs within this queue's rate limit join the Slow Protocols frames on the ring (the
  // control thread tells them apart by EtherType); the rest are dropped as lldp_policed.
  void lldp_to_control(rte_mbuf** lldpdus, std::uint16_t count,
                       datapath::WorkerCounters& counters) {
    const std::uint64_t now = rte_rdtsc();
    police_to_control(lldpdus, count, datapath::DropReason::kLldpPoliced, counters,
                      [&](const rte_mbuf*) { return lldp_policer_.take(now); });
  }

  // The frames `admit` lets through go to the control ring, in order; the rest are dropped and
  // counted under `reason`.
  template <typename Admit>
  void police_to_control(rte_mbuf** frames, std::uint16_t count, datapath::DropReason reason,
                         datapath::WorkerCounters& counters, Admit&& admit) {
    std::array<rte_mbuf*, datapath::kMaxBurst> dropped;
    std::uint16_t allowed = 0, policed = 0;
    for (std::uint16_t i = 0; i < count; ++i) {
      if (admit(frames[i])) {
        frames[allowed++] = frames[i];
      } else {
        dropped[policed++] = frames[i];
      }
    }
    if (policed != 0) {
      counters.drops[static_cast<std::size_t>(reason)].add(policed);
      rte_pktmbuf_free_bulk(dropped.data(), policed);
    }
    enqueue_to_control(frames, allowed, counters);
  }

  void enqueue_to_control(rte_mbuf** frames, std::uint16_t count,
                          datapath::WorkerCounters& counters) {
    if (count == 0) return;
    const unsigned queued = rte_ring_mp_enqueue_burst(
        shared_->slow_ring, reinterpret_cast<void**>(frames), count, nullptr);
    counters.to_control.add(queued);
    if (queued < count) {
      counters.drops[static_cast<std::size_t>(datapath::DropReason::kSlowPathFull)].add(count -
                                                                                        queued);
      rte_pktmbuf_free_bulk(frames + queued, count - queued);
    }
  }

  const BondShared* shared_;
  MemberIndex member_;
  std::uint16_t port_id_;
  datapath::TxBuffer* peer_tx_;
  SlowPolicer slow_policer_;  // in TSC cycles
  BfdPolicer bfd_policer_;    // in TSC cycles
  TokenBucket lldp_policer_;  // in TSC cycles
};

}  // namespace braid::bond
