// A worker's pending packets for one (egress port, TX queue). Filled a burst at a time, sent when
// full or when the drain deadline passes, so partial bursts never wait long. Owned by exactly one
// worker thread: no locks.
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "datapath/counters.hpp"

namespace braid::datapath {

inline constexpr std::uint16_t kMaxBurst = 512;

class TxBuffer {
 public:
  TxBuffer(std::uint16_t port, std::uint16_t queue, std::uint16_t burst, WorkerCounters& counters)
      : port_(port), queue_(queue), burst_(burst), counters_(&counters) {}

  std::uint16_t port() const { return port_; }
  std::uint16_t pending() const { return count_; }

  // Queues `n` packets; sends whenever a full burst is ready. Copies in runs (the count stays in
  // a register: a store and reload of it per packet stalled the bond's per-member fan-out).
  void add(rte_mbuf** packets, std::uint16_t n) {
    if (count_ == 0 && n == burst_) {
      send(packets, n);
      return;
    }
    while (n != 0) {
      const std::uint16_t take = std::min<std::uint16_t>(n, burst_ - count_);
      std::copy_n(packets, take, buffer_.data() + count_);
      count_ = static_cast<std::uint16_t>(count_ + take);
      packets += take;
      n = static_cast<std::uint16_t>(n - take);
      if (count_ == burst_) flush();
    }
  }

  void add_one(rte_mbuf* packet) {
    buffer_[count_++] = packet;
    if (count_ == burst_) flush();
  }

  // Hands back the pending packets without sending them (a bond re-routes them when this
  // buffer's member stops distributing). Returns how many were written to `out`.
  std::uint16_t take(rte_mbuf** out) {
    const std::uint16_t n = count_;
    for (std::uint16_t i = 0; i < n; ++i)
      out[i] = buffer_[i];
    count_ = 0;
    return n;
  }

  void flush() {
    if (count_ == 0) return;
    const std::uint16_t n = count_;
    count_ = 0;
    send(buffer_.data(), n);
  }

 private:
  void send(rte_mbuf** packets, std::uint16_t n) {
    const std::uint16_t sent = rte_eth_tx_burst(port_, queue_, packets, n);
    counters_->tx_packets[port_].add(sent);
    if (sent < n) {
      counters_->drops[static_cast<std::size_t>(DropReason::kTxFull)].add(n - sent);
      rte_pktmbuf_free_bulk(packets + sent, n - sent);
    }
  }

  std::uint16_t port_;
  std::uint16_t queue_;
  std::uint16_t burst_;
  std::uint16_t count_ = 0;
  WorkerCounters* counters_;
  std::array<rte_mbuf*, kMaxBurst> buffer_{};
};

}  // namespace braid::datapath
