// How deep each bond member's transmit queue is, as the worker that owns the queue measures it,
// for least-queue-first and for moving buckets without reordering (doc/scheduler.md).
//
// At its drain tick (never per packet) the worker first takes the bond's newest
// table (so a measurement also tells the scheduler this worker has seen every table published
// before it), then measures, per member, the packets still in its own TX buffer for that member
// (waiting to leave) plus the descriptors of its TX queue the NIC has not completed
// (rte_eth_tx_descriptor_status, searched as tx_descriptors_in_use.hpp describes; at most every
// kQueueProbeIntervalUs), and publishes the sum, the tick's time and the table generation as one
// value (a sequence lock: a reader never pairs one tick's depth with another's generation). A PMD
// without descriptor status (-ENOTSUP: net_ring, net_null, af_packet, ...) is found out at the
// first measurement and not asked again; its queue then reads as "buffer only". The control
// thread sums the workers' readings (member_queue_depth.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "bond/dpdk/bond_datapath.hpp"
#include "common/seqlock.hpp"
#include "datapath/counters.hpp"
#include "datapath/tx_buffer.hpp"

namespace braid::engine {

// Descriptor reads: the scheduler reads depths every control period (10 ms by default); a 1 ms
// old count is fresh enough, and 11 reads per member per millisecond cost nothing measurable.
inline constexpr std::uint64_t kQueueProbeIntervalUs = 1000;
// mlx5 asks the NIC for a TX completion every this many packets (MLX5_TX_COMP_THRESH,
// drivers/net/mlx5/mlx5_defs.h in DPDK 22.11) and reports no tx_rs_thresh.
inline constexpr std::uint32_t kMlx5CompletionInterval = 32;

class TxQueueProbe {
 public:
  struct MemberQueue {
    std::uint16_t port = 0;
    std::uint16_t queue = 0;                     // this worker's TX queue on the member
    std::uint32_t ring_size = 0;                 // descriptors
    std::uint32_t report_interval = 1;           // tx_rs_thresh: descriptors completed at a time
    const datapath::TxBuffer* buffer = nullptr;  // this worker's buffer for the member
  };
  struct Reading {
    std::uint32_t packets = 0;       // buffered, plus descriptors in use when `descriptors`
    bool descriptors = false;        // the NIC's queue could be read
    std::uint64_t measured_tsc = 0;  // the tick it describes; 0: none yet
    // The bond table generation this worker distributed on when it measured: every packet it
    // sent under older tables is in `packets` or gone (held moves release on generations).
    std::uint64_t generation = 0;
  };

  // `egress`: this worker's side of the bond; members in bond order; `interval_cycles`: TSC
  // cycles between descriptor reads.
  TxQueueProbe(bond::BondEgress* egress, std::vector<MemberQueue> members,
               std::uint64_t interval_cycles);

  // Worker, at its drain tick and before draining (so buffered packets are counted).
  void measure(std::uint64_t now_tsc, datapath::WorkerCounters& counters);
  // Any thread. All of one measurement; while the worker is mid-way through publishing one
  // (rarely), nothing: measured_tsc 0 and generation 0 (no table acknowledged).
  Reading reading(std::size_t member) const;

 private:
  // kEmulatedLink: no descriptor status, but a link emulator holds the member's queue (tests and
  // benchmarks): its depth is what this worker's ECN marking sees.
  enum class Method : std::uint8_t { kUntried, kDescriptorStatus, kBufferOnly, kEmulatedLink };

  bond::BondEgress* egress_;
  std::vector<MemberQueue> members_;
  std::vector<Method> methods_;
  std::unique_ptr<SeqLock<Reading>[]> published_;
  std::uint64_t interval_cycles_;
  std::uint64_t next_descriptors_tsc_ = 0;
};

}  // namespace braid::engine
