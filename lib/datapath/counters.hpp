// Per-worker packet counters. Each worker writes only its own block (single writer, so a relaxed
// load + store is enough: no locked instruction on the per-packet path); the control thread sums
// them on demand. Blocks are cache-line aligned so workers never share a line.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "datapath/drop_reason.hpp"

namespace braid::datapath {

inline constexpr std::size_t kMaxPorts = 64;

class Counter {
 public:
  void add(std::uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void sub(std::uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
  }
  void set(std::uint64_t n) { value_.store(n, std::memory_order_relaxed); }
  std::uint64_t get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

struct alignas(64) WorkerCounters {
  std::array<Counter, kMaxPorts> rx_packets;  // by receiving port
  std::array<Counter, kMaxPorts> tx_packets;  // by transmitting port
  std::array<Counter, kDropReasonCount> drops;
  Counter buffered;    // taken from RX, waiting in a TX buffer: the "in flight" of the invariant
  Counter to_control;  // Slow Protocols frames handed to the control thread (LACP, marker)
  Counter rerouted;    // taken for a member that stopped distributing, sent on a survivor
  Counter loops;       // poll iterations, for busy/idle insight
  Counter idle_loops;
};

// What the NIC (or PMD) itself dropped or failed, from rte_eth_stats: packets that never
// reached a worker, so they are outside the worker accounting invariant.
struct NicCounters {
  std::uint64_t rx_packets = 0;
  std::uint64_t tx_packets = 0;
  std::uint64_t rx_bytes = 0;
  std::uint64_t tx_bytes = 0;
  std::uint64_t rx_missed = 0;   // imissed: RX ring full
  std::uint64_t rx_no_mbuf = 0;  // rx_nombuf: mempool empty
  std::uint64_t rx_errors = 0;
  std::uint64_t tx_errors = 0;
};

// A plain-value sum of any number of WorkerCounters.
struct CounterTotals {
  std::array<std::uint64_t, kMaxPorts> rx_packets{};
  std::array<std::uint64_t, kMaxPorts> tx_packets{};
  std::array<std::uint64_t, kDropReasonCount> drops{};
  std::uint64_t buffered = 0;
  std::uint64_t to_control = 0;
  std::uint64_t rerouted = 0;

  void add(const WorkerCounters& worker) {
    for (std::size_t i = 0; i < kMaxPorts; ++i) {
      rx_packets[i] += worker.rx_packets[i].get();
      tx_packets[i] += worker.tx_packets[i].get();
    }
    for (std::size_t i = 0; i < kDropReasonCount; ++i)
      drops[i] += worker.drops[i].get();
    buffered += worker.buffered.get();
    to_control += worker.to_control.get();
    rerouted += worker.rerouted.get();
  }
  // The accounting identity: every packet taken from RX was sent, dropped under a named reason,
  // handed to the control thread, or is waiting in a TX buffer.
  bool balanced() const { return rx() == tx() + dropped() + to_control + buffered; }
  std::uint64_t rx() const { return sum(rx_packets); }
  std::uint64_t tx() const { return sum(tx_packets); }
  std::uint64_t dropped() const { return sum(drops); }

 private:
  template <std::size_t N>
  static std::uint64_t sum(const std::array<std::uint64_t, N>& values) {
    std::uint64_t total = 0;
    for (std::uint64_t v : values)
      total += v;
    return total;
  }
};

}  // namespace braid::datapath
