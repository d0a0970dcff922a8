#include "quirky_port.hpp"

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_malloc.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace braid::test {
namespace {

// rte_pktmbuf_copy copies the whole packet, however many segments it has.
constexpr std::uint32_t kWholePacket = UINT32_MAX;

}  // namespace

QuirkyPort::QuirkyPort(const std::string& name, const QuirkySettings& settings)
    : settings_(settings), name_(name) {
  if (settings_.tx_queues == 0 || settings_.tx_queues > RTE_PMD_RING_MAX_TX_RINGS) {
    throw std::invalid_argument("quirky port " + name + ": tx_queues must be 1 to " +
                                std::to_string(RTE_PMD_RING_MAX_TX_RINGS));
  }
  to_port_ = rte_ring_create((name + "_rx").c_str(), settings_.ring_size, 0,
                             RING_F_SP_ENQ | RING_F_SC_DEQ);
  if (to_port_ == nullptr) throw std::runtime_error("quirky port " + name + ": ring create failed");
  std::vector<rte_ring*> tx_rings;
  for (unsigned q = 0; q < settings_.tx_queues; ++q) {
    auto queue = std::make_unique<Queue>();
    queue->port = this;
    queue->id = static_cast<std::uint16_t>(q);
    queue->ring = rte_ring_create((name + "_tx" + std::to_string(q)).c_str(), settings_.ring_size,
                                  0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (queue->ring == nullptr) {
      throw std::runtime_error("quirky port " + name + ": ring create failed");
    }
    tx_rings.push_back(queue->ring);
    queues_.push_back(std::move(queue));
  }
  if (retaining()) {
    // Every ring full of copies at once; SOCKET_ID_ANY: the port may claim a socket that has no
    // memory on this machine.
    copies_ =
        rte_pktmbuf_pool_create((name + "_cp").c_str(), settings_.tx_queues * settings_.ring_size,
                                0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    if (copies_ == nullptr) {
      throw std::runtime_error("quirky port " + name + ": cannot create its copy pool");
    }
  }
  const int id = rte_eth_from_rings(name.c_str(), &to_port_, 1, tx_rings.data(),
                                    settings_.tx_queues, settings_.numa_node);
  if (id < 0) throw std::runtime_error("rte_eth_from_rings failed for " + name);
  port_id_ = static_cast<std::uint16_t>(id);
  char ethdev_name[RTE_ETH_NAME_MAX_LEN];
  rte_eth_dev_get_name_by_port(port_id_, ethdev_name);
  name_ = ethdev_name;  // the ring PMD prefixes the name it was given
  // A locally administered unicast MAC, as RingPort gives (LACP identifies ports by MAC).
  rte_ether_addr mac{{0x02, 0x00, 0x00, 0x01, static_cast<std::uint8_t>(port_id_ >> 8),
                      static_cast<std::uint8_t>(port_id_)}};
  rte_eth_dev_default_mac_addr_set(port_id_, &mac);
}

QuirkyPort::~QuirkyPort() {
  if (rte_eth_dev_is_valid_port(port_id_)) {
    std::vector<const rte_eth_rxtx_callback*> callbacks(queues_.size(), nullptr);
    for (const auto& queue : queues_)
      callbacks[queue->id] = queue->callback;
    rte_eth_dev_info info{};
    // Giving the port its TX queues back needs it stopped (a bare test may not have).
    if (rte_eth_dev_info_get(port_id_, &info) == 0 && callbacks.size() > info.nb_tx_queues)
      rte_eth_dev_stop(port_id_);
    // Nothing sends any more (the contract above), so the callbacks may be freed now.
    if (remove_tx_callbacks(port_id_, callbacks)) {
      for (const rte_eth_rxtx_callback* callback : callbacks)
        rte_free(const_cast<rte_eth_rxtx_callback*>(callback));
    }
    if (rte_eth_dev_close(port_id_) == -EINVAL) {  // still started: a bare test forgot to stop
      rte_eth_dev_stop(port_id_);
      rte_eth_dev_close(port_id_);
    }
  }
  release_all();
  std::vector<rte_ring*> rings = {to_port_};
  for (const auto& queue : queues_)
    rings.push_back(queue->ring);
  for (rte_ring* ring : rings) {
    if (ring == nullptr) continue;
    rte_mbuf* leftover = nullptr;
    while (rte_ring_dequeue(ring, reinterpret_cast<void**>(&leftover)) == 0)
      rte_pktmbuf_free(leftover);
    rte_ring_free(ring);
  }
  rte_mempool_free(copies_);  // after the rings: their copies go back to it first
}

void QuirkyPort::attach(std::uint16_t nb_desc) {
  attach(std::vector<std::uint16_t>(queues_.size(), nb_desc));
}

void QuirkyPort::attach(const std::vector<std::uint16_t>& per_queue) {
  const std::uint16_t nb_desc = per_queue.empty() ? 0 : per_queue.front();
  if (retaining()) {
    std::uint16_t descriptors = nb_desc != 0 ? nb_desc : settings_.nb_desc;
    rte_eth_txq_info info{};
    if (descriptors == 0 && rte_eth_tx_queue_info_get(port_id_, 0, &info) == 0) {
      descriptors = info.nb_desc;
    }
    if (descriptors == 0) {
      throw std::invalid_argument(
          "quirky port " + name_ +
          ": a retaining TX free policy needs the TX descriptor count, and net_ring cannot "
          "report it; pass the count braid configured to attach() or set QuirkySettings::nb_desc");
    }
    if (settings_.tx_free == TxFree::kBatch &&
        (settings_.rs_thresh == 0 || settings_.rs_thresh > descriptors ||
         settings_.free_thresh > descriptors)) {
      throw std::invalid_argument("quirky port " + name_ + ": rs_thresh " +
                                  std::to_string(settings_.rs_thresh) + " and free_thresh " +
                                  std::to_string(settings_.free_thresh) + " must fit in " +
                                  std::to_string(descriptors) + " descriptors (rs_thresh > 0)");
    }
    nb_desc_ = descriptors;
  }
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(port_id_, &info) != 0) {
    throw std::runtime_error("quirky port " + name_ + ": cannot read device info");
  }
  const std::size_t configured = std::min<std::size_t>(info.nb_tx_queues, queues_.size());
  for (std::size_t q = 0; q < configured; ++q) {
    Queue& queue = *queues_[q];
    if (queue.callback != nullptr) continue;
    queue.nb_desc = q < per_queue.size() && per_queue[q] != 0 ? per_queue[q] : nb_desc_;
    queue.slots.assign(queue.nb_desc, nullptr);
    queue.next_slot = queue.oldest_slot = queue.held = 0;
    queue.callback = rte_eth_add_tx_callback(port_id_, queue.id, on_tx, &queue);
    if (queue.callback == nullptr) {
      throw std::runtime_error("quirky port " + name_ + ": cannot add a TX callback on queue " +
                               std::to_string(q) + ": " + rte_strerror(rte_errno));
    }
  }
}

void QuirkyPort::refuse_next(std::uint16_t queue, std::uint32_t packets) {
  queues_.at(queue)->refusals.fetch_add(packets, std::memory_order_relaxed);
}

QuirkyQueueStats QuirkyPort::stats(std::uint16_t queue) const {
  const Queue& q = *queues_.at(queue);
  QuirkyQueueStats s;
  s.offered = q.offered.load(std::memory_order_relaxed);
  s.accepted = q.accepted.load(std::memory_order_relaxed);
  s.refused = s.offered - s.accepted;
  s.copy_failed = q.copy_failed.load(std::memory_order_relaxed);
  s.retained = q.retained.load(std::memory_order_relaxed);
  s.freed = q.freed.load(std::memory_order_relaxed);
  return s;
}

QuirkyQueueStats QuirkyPort::total() const {
  QuirkyQueueStats sum;
  for (std::uint16_t q = 0; q < queues_.size(); ++q) {
    const QuirkyQueueStats s = stats(q);
    sum.offered += s.offered;
    sum.accepted += s.accepted;
    sum.refused += s.refused;
    sum.copy_failed += s.copy_failed;
    sum.retained += s.retained;
    sum.freed += s.freed;
  }
  return sum;
}

void QuirkyPort::release_all() {
  for (const auto& queue : queues_)
    release(*queue);
}

// Runs in the sending thread inside rte_eth_tx_burst; what it returns is what net_ring sends.
std::uint16_t QuirkyPort::on_tx(std::uint16_t, std::uint16_t, rte_mbuf** packets,
                                std::uint16_t count, void* user) {
  Queue& queue = *static_cast<Queue*>(user);
  return queue.port->transmit(queue, packets, count);
}

std::uint16_t QuirkyPort::transmit(Queue& queue, rte_mbuf** packets, std::uint16_t count) {
  queue.offered.fetch_add(count, std::memory_order_relaxed);
  std::uint16_t taken = room(queue, count);
  std::uint32_t pending = queue.refusals.load(std::memory_order_relaxed);
  while (pending != 0) {
    const auto refused = static_cast<std::uint16_t>(std::min<std::uint32_t>(pending, taken));
    if (queue.refusals.compare_exchange_weak(pending, pending - refused,
                                             std::memory_order_relaxed)) {
      taken = static_cast<std::uint16_t>(taken - refused);
      break;
    }
  }
  if (retaining()) {
    for (std::uint16_t i = 0; i < taken; ++i) {
      rte_mbuf* copy = rte_pktmbuf_copy(packets[i], copies_, 0, kWholePacket);
      if (copy == nullptr) {
        queue.copy_failed.fetch_add(1, std::memory_order_relaxed);
        taken = i;
        break;
      }
      retain(queue, packets[i]);
      packets[i] = copy;
    }
    queue.retained.store(queue.held, std::memory_order_relaxed);
  }
  queue.accepted.fetch_add(taken, std::memory_order_relaxed);
  return taken;
}

// How many of `count` packets the queue takes before refusals: the burst limit, its ring's room,
// and under kBatch its free slots, after the batch free a driver does at the top of its burst.
std::uint16_t QuirkyPort::room(Queue& queue, std::uint16_t count) {
  unsigned taken = count;
  if (settings_.max_tx_burst != 0) taken = std::min<unsigned>(taken, settings_.max_tx_burst);
  taken = std::min(taken, rte_ring_free_count(queue.ring));
  if (settings_.tx_free == TxFree::kBatch) {
    if (queue.nb_desc - queue.held < settings_.free_thresh) free_oldest(queue, settings_.rs_thresh);
    taken = std::min<unsigned>(taken, queue.nb_desc - queue.held);
  }
  return static_cast<std::uint16_t>(taken);
}

// The "NIC" transmits at once, so every slot is done; under kOnSlotReuse a slot's previous mbuf
// is freed as the slot is filled again, under kBatch the slot is free already (room()).
void QuirkyPort::retain(Queue& queue, rte_mbuf* packet) {
  rte_mbuf*& slot = queue.slots[queue.next_slot];
  if (slot != nullptr) {
    rte_pktmbuf_free(slot);
    queue.freed.fetch_add(1, std::memory_order_relaxed);
    --queue.held;
  }
  slot = packet;
  ++queue.held;
  queue.next_slot = (queue.next_slot + 1) % queue.nb_desc;
}

void QuirkyPort::free_oldest(Queue& queue, std::uint32_t count) {
  count = std::min(count, queue.held);
  for (std::uint32_t i = 0; i < count; ++i) {
    rte_pktmbuf_free(queue.slots[queue.oldest_slot]);
    queue.slots[queue.oldest_slot] = nullptr;
    queue.oldest_slot = (queue.oldest_slot + 1) % queue.nb_desc;
  }
  queue.held -= count;
  queue.freed.fetch_add(count, std::memory_order_relaxed);
}

void QuirkyPort::release(Queue& queue) {
  std::uint64_t released = 0;
  for (rte_mbuf*& slot : queue.slots) {
    if (slot == nullptr) continue;
    rte_pktmbuf_free(slot);
    slot = nullptr;
    ++released;
  }
  queue.next_slot = queue.oldest_slot = queue.held = 0;
  queue.freed.fetch_add(released, std::memory_order_relaxed);
  queue.retained.store(0, std::memory_order_relaxed);
}

}  // namespace braid::test
