// A test-only port whose TX path behaves like a real NIC's where net_ring's does not: net_ring
// frees nothing (the mbuf itself travels on the ring) and takes every burst it has ring room for,
// while i40e, ice and ixgbe keep each transmitted mbuf until its descriptor slot is reused, free
// them in batches, take bursts partially when their ring is nearly full, and live on a NUMA
// socket. Each behaviour is switched on in QuirkySettings, so a test can show what braid does
// against it.
//
// How it works: a net_ring ethdev (rte_eth_from_rings) with a TX callback on every TX queue.
// The callback is the "NIC": it decides how many of the offered packets the queue takes (a
// prefix of the burst, as a PMD's return value says), and under a retaining TxFree policy it
// puts each taken packet in one of the queue's `nb_desc` slots and hands net_ring a copy of it
// (rte_pktmbuf_copy into the port's own pool) in its place in the burst array. The copy is what
// arrives on from_port(); the original stays out of its pool until the "NIC" frees it. The caller
// keeps, with their original pointers, exactly the packets after the prefix (tx_burst's usual
// contract), because the callback only passes on as many as the queue's TX ring has room for,
// so net_ring enqueues all of them.
//
// One ring per TX queue, single producer, single consumer: the room check (rte_ring_free_count)
// and net_ring's enqueue are two steps, and on a ring shared by several queues another queue's
// sender (a worker, braid's control thread) could take the room between them; net_ring would then
// take fewer than the callback promised and the caller would free copies whose originals the
// "NIC" holds. A TX queue has one sender at a time (an ethdev rule), so its own ring cannot race.
// drain() reads every queue's ring.
//
// Callbacks and configuration (measured on DPDK 22.11, net_ring): rte_eth_from_rings already sets
// the port's TX queue count to the number of rings, so callbacks can be added right after
// construction. rte_eth_dev_configure, rte_eth_tx_queue_setup, start and stop keep them: they
// live in the rte_eth_dev slot, per queue id, and configure never touches them (a queue id above a
// configure's count even keeps its callback, which runs again once a later configure brings the
// queue back). rte_eth_add_tx_callback refuses (EINVAL) a queue id at or above the current TX
// queue count. rte_eth_dev_close does not remove them, and after close they cannot be removed
// (ENODEV): the destructor removes them first, or the next port in that ethdev slot would call
// into a freed QuirkyPort. So: construct, let braid's Engine configure and start the port (it
// finds it by name(), like a RingPort), call attach() before anything sends, and before
// Engine::start() launches the workers.
//
// Descriptor count: net_ring ignores the nb_tx_desc given to rte_eth_tx_queue_setup and does not
// implement rte_eth_tx_queue_info_get (-ENOTSUP), so the "NIC" cannot learn the ring size the
// application configured. attach(nb_desc) takes it (braid: engine.port(i).tx_descriptors()), or
// QuirkySettings::nb_desc, and tries rte_eth_tx_queue_info_get only when both are 0.
//
// Not emulated: descriptors the NIC has not finished with (every slot is done at once, so
// kOnSlotReuse never limits a burst), rte_eth_tx_done_cleanup, rte_eth_tx_descriptor_status.
//
// Threads: each queue's callback runs in the thread that sends on that queue; stats() and
// refuse_next() may be called from any thread meanwhile. release_all(), attach() and the
// destructor need nothing sending on the port (the engine stopped or paused).
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "eal_environment.hpp"

namespace braid::test {

// When the "NIC" frees a packet it transmitted.
enum class TxFree : std::uint8_t {
  // net_ring as is: the mbuf itself goes on the ring, nothing is copied or held.
  kImmediate,
  // i40e/ice/ixgbe full-featured (scalar) TX: each packet takes the next of nb_desc slots, and
  // the mbuf a slot held is freed only when the slot is used again. A queue that sent n packets
  // holds min(n, nb_desc) of them for as long as it sends nothing more.
  kOnSlotReuse,
  // i40e/ixgbe simple and vector TX (i40e_tx_free_bufs, ixgbe_tx_free_bufs): when fewer than
  // free_thresh slots are free, the oldest rs_thresh held mbufs are freed at once, and a burst
  // takes at most the free slots. Both drivers default to tx_rs_thresh = tx_free_thresh = 32, the
  // "batches of 32" of ixgbe's vector path.
  kBatch,
};

struct QuirkySettings {
  unsigned tx_queues = 2;     // braid: one per worker plus a bond member's control queue
  unsigned ring_size = 4096;  // each TX queue's ring and the RX ring (a power of two)
  // What rte_eth_dev_socket_id reports. braid's Engine creates its pool on that socket, which
  // fails (EINVAL) where EAL has no memory there, e.g. socket 1 on a one-node test machine.
  unsigned numa_node = 0;
  TxFree tx_free = TxFree::kImmediate;
  std::uint16_t nb_desc = 0;       // slots per TX queue; 0: attach()'s argument or txq info
  std::uint16_t rs_thresh = 32;    // kBatch: mbufs freed at a time (i40e/ixgbe default)
  std::uint16_t free_thresh = 32;  // kBatch: ... once fewer slots than this are free
  std::uint16_t max_tx_burst = 0;  // at most this many taken per tx_burst call; 0: no limit
};

struct QuirkyQueueStats {
  std::uint64_t offered = 0;      // packets given to tx_burst
  std::uint64_t accepted = 0;     // ... that it took (its return values)
  std::uint64_t refused = 0;      // offered - accepted: burst limit, refuse_next, room, copy pool
  std::uint64_t copy_failed = 0;  // ... of them because the port's copy pool was empty
  std::uint64_t retained = 0;     // transmitted mbufs the "NIC" holds now
  std::uint64_t freed = 0;        // held mbufs it has freed (slot reuse, batch, release_all)
};

class QuirkyPort {
 public:
  // Creates the ethdev (its name() is "net_ring_" + name); nothing is intercepted before attach().
  explicit QuirkyPort(const std::string& name, const QuirkySettings& settings = {});
  // Removes the callbacks, closes the port (whoever started it must have stopped it: braid's
  // Engine does), frees what the "NIC" holds and what the rings hold, and the copy pool.
  ~QuirkyPort();
  QuirkyPort(const QuirkyPort&) = delete;
  QuirkyPort& operator=(const QuirkyPort&) = delete;

  // Installs the TX callback on every TX queue the port has now. `nb_desc` (or the settings')
  // is the ring size braid configured; needed by kOnSlotReuse and kBatch. Throws if a retaining
  // policy finds no descriptor count or thresholds that do not fit it. Calling it again only
  // adds callbacks for queues that have none.
  void attach(std::uint16_t nb_desc = 0);
  // The same with a descriptor count per TX queue, as the application configured each (braid's
  // bond members: a short control queue last); 0 entries take the first's.
  void attach(const std::vector<std::uint16_t>& per_queue);

  // The next `packets` packets that `queue` would otherwise take are refused: a burst taken while
  // refusals are pending comes back short by up to that many (the tail of the burst, which the
  // caller keeps), as a nearly full NIC ring would return it.
  void refuse_next(std::uint16_t queue, std::uint32_t packets);

  QuirkyQueueStats stats(std::uint16_t queue) const;
  QuirkyQueueStats total() const;  // summed over the queues

  // Frees every mbuf the "NIC" holds, on every queue, as a port stop would.
  void release_all();

  const std::string& name() const { return name_; }
  std::uint16_t port_id() const { return port_id_; }
  const QuirkySettings& settings() const { return settings_; }
  std::uint16_t nb_desc() const { return nb_desc_; }  // 0 before attach() or when not needed
  // Frames the port receives: enqueue them here.
  rte_ring* to_port() { return to_port_; }
  // What queue `queue` transmitted (copies under a retaining policy), in order.
  rte_ring* from_port(std::uint16_t queue) { return queues_.at(queue)->ring; }
  // Takes every frame the port has sent so far, queue by queue, shows each to `visit`, and frees
  // it.
  template <typename Visit>
  void drain(Visit visit) {
    for (const auto& queue : queues_)
      drain_ring(queue->ring, visit);
  }

 private:
  struct Queue {
    QuirkyPort* port = nullptr;
    std::uint16_t id = 0;
    rte_ring* ring = nullptr;
    const rte_eth_rxtx_callback* callback = nullptr;
    // The "NIC"'s slots: only the sending thread touches them (and release_all, when none sends).
    std::vector<rte_mbuf*> slots;
    std::uint32_t nb_desc = 0;      // this queue's descriptors
    std::uint32_t next_slot = 0;    // where the next packet goes
    std::uint32_t oldest_slot = 0;  // kBatch: the next to free
    std::uint32_t held = 0;
    std::atomic<std::uint32_t> refusals{0};
    std::atomic<std::uint64_t> offered{0};
    std::atomic<std::uint64_t> accepted{0};
    std::atomic<std::uint64_t> copy_failed{0};
    std::atomic<std::uint64_t> retained{0};
    std::atomic<std::uint64_t> freed{0};
  };

  static std::uint16_t on_tx(std::uint16_t port, std::uint16_t queue, rte_mbuf** packets,
                             std::uint16_t count, void* user);
  std::uint16_t transmit(Queue& queue, rte_mbuf** packets, std::uint16_t count);
  std::uint16_t room(Queue& queue, std::uint16_t count);
  void retain(Queue& queue, rte_mbuf* packet);
  void free_oldest(Queue& queue, std::uint32_t count);
  void release(Queue& queue);
  bool retaining() const { return settings_.tx_free != TxFree::kImmediate; }

  QuirkySettings settings_;
  std::string name_;
  std::uint16_t port_id_ = 0;
  std::uint16_t nb_desc_ = 0;
  rte_ring* to_port_ = nullptr;
  std::vector<std::unique_ptr<Queue>> queues_;
  rte_mempool* copies_ = nullptr;  // what travels on the rings under a retaining policy
};

}  // namespace braid::test
