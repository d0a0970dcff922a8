// A worker lcore's state and its poll loop: RX burst from each owned (port, queue), hand the
// burst to the egress port's TX buffer, drain partial bursts on a TSC deadline. Everything here
// belongs to one thread; the control thread only reads the counters and sets `running`.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/counters.hpp"
#include "engine/tx_buffer.hpp"

namespace braid::engine {

struct RxRoute {
  std::uint16_t port = 0;
  std::uint16_t queue = 0;
  TxBuffer* egress = nullptr;  // nullptr: nothing to forward to (counted as no_route)
};

struct Worker {
  unsigned lcore = 0;
  int socket = 0;
  std::uint16_t burst = 32;
  std::uint64_t drain_cycles = 0;  // TSC cycles between forced drains of partial bursts
  std::vector<RxRoute> routes;
  std::vector<std::unique_ptr<TxBuffer>> tx_buffers;  // one per egress port, this worker's queue
  WorkerCounters counters;
  const std::atomic<bool>* running = nullptr;

  // Sends every partial burst now.
  void drain();
  // The poll loop; returns when `running` turns false, after a final drain.
  void run();
};

// rte_eal_remote_launch entry point; `arg` is a Worker*.
int worker_main(void* arg);

}  // namespace braid::engine
