#include "linkemu/ring_link.hpp"

#include <rte_mbuf_dyn.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/clock.hpp"

namespace braid::linkemu {
namespace {

constexpr unsigned kBurst = 64;
// A poll takes at most this much from the port, so one call stays short however far behind
// the poller is; the rest waits in the port's ring (and counts in queue_depth()).
constexpr unsigned kMaxTakenPerPoll = 4096;

struct ArrivalStamp {
  int offset = -1;
  std::uint64_t flag = 0;
};

// DPDK's RX timestamp dynamic field, registered once per process.
const ArrivalStamp& arrival_stamp() {
  static const ArrivalStamp stamp = [] {
    ArrivalStamp s;
    if (rte_mbuf_dyn_rx_timestamp_register(&s.offset, &s.flag) != 0) {
      throw std::runtime_error("linkemu: cannot register the mbuf RX timestamp field");
    }
    return s;
  }();
  return stamp;
}

// When a packet was handed to an emulated link's port (monotonic ns), in a dynamic field of its
// own, registered once per process.
int handed_field() {
  static const int offset = [] {
    const rte_mbuf_dynfield field = {"braid_linkemu_handed_ns", sizeof(std::uint64_t),
                                     alignof(std::uint64_t), 0};
    const int registered = rte_mbuf_dynfield_register(&field);
    if (registered < 0) throw std::runtime_error("linkemu: cannot register an mbuf field");
    return registered;
  }();
  return offset;
}

std::uint64_t& handed_ns(rte_mbuf* packet) {
  return *RTE_MBUF_DYNFIELD(packet, handed_field(), std::uint64_t*);
}

// The PFC priority a NIC would send a frame on: its outer VLAN tag's PCP, else its DSCP's class
// selector (mlx5's default DSCP-to-priority map under `trust dscp`: DSCP 26 is priority 3), else
// 0.
std::uint8_t frame_priority(const rte_mbuf* packet) {
  const auto* frame = rte_pktmbuf_mtod(packet, const std::uint8_t*);
  const std::uint32_t length = packet->data_len;
  if (length < 14) return 0;
  const auto ethertype = static_cast<std::uint16_t>(frame[12] << 8 | frame[13]);
  if ((ethertype == RTE_ETHER_TYPE_VLAN || ethertype == RTE_ETHER_TYPE_QINQ) && length >= 16)
    return static_cast<std::uint8_t>(frame[14] >> 5);
  if (ethertype == RTE_ETHER_TYPE_IPV4 && length >= 16)
    return static_cast<std::uint8_t>(frame[15] >> 5);  // DSCP's top 3 bits
  if (ethertype == RTE_ETHER_TYPE_IPV6 && length >= 16)
    return static_cast<std::uint8_t>((frame[14] & 0x0F) >> 1);  // traffic class bits 7..5
  return 0;
}

}  // namespace

RingLink::RingLink(std::uint16_t port_id, rte_ring* from_port, rte_ring* to_peer,
                   const LinkSettings& settings)
    : port_id_(port_id),
      from_port_(from_port),
      to_peer_(to_peer),
      link_(settings),
      publication_([from_port] { return rte_ring_count(from_port); }) {
  arrival_stamp();
  handed_field();
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(port_id_, &info) != 0) {
    throw std::runtime_error("linkemu: port " + std::to_string(port_id_) + " is not a port");
  }
  for (std::uint16_t queue = 0; queue < info.nb_tx_queues; ++queue)
    callbacks_.push_back(rte_eth_add_tx_callback(port_id_, queue, note_handed, nullptr));
  offered_until_ns_ = monotonic_ns();
  publication_.publish(0, link_.counters());
  attach_link(port_id_, &publication_);
}

// Runs in the sending thread inside rte_eth_tx_burst.
std::uint16_t RingLink::note_handed(std::uint16_t, std::uint16_t, rte_mbuf** packets,
                                    std::uint16_t count, void*) {
  const std::uint64_t now = monotonic_ns();
  for (std::uint16_t i = 0; i < count; ++i)
    handed_ns(packets[i]) = now;
  return count;
}

RingLink::~RingLink() {
  detach_link(port_id_, &publication_);
  // The port keeps no pointer to this link: its callbacks need no state, and removing them only
  // stops the stamping (DPDK never frees a removed callback while a burst may still run it).
  for (std::uint16_t queue = 0; queue < callbacks_.size(); ++queue) {
    if (callbacks_[queue] != nullptr)
      rte_eth_remove_tx_callback(port_id_, queue, callbacks_[queue]);
  }
  std::vector<rte_mbuf*> held;
  link_.take_all(held);
  for (rte_mbuf* packet : held)
    rte_pktmbuf_free(packet);
}

unsigned RingLink::poll() {
  const std::uint64_t now = monotonic_ns();
  rte_mbuf* burst[kBurst];
  unsigned taken = 0;
  unsigned n = 0;
  while (taken < kMaxTakenPerPoll &&
         (n = rte_ring_dequeue_burst(from_port_, reinterpret_cast<void**>(burst), kBurst,
                                     nullptr)) != 0) {
    taken += n;
    for (unsigned i = 0; i < n; ++i) {
      // Into the link when the port took it (never before what the link already took in).
      offered_until_ns_ = std::clamp(handed_ns(burst[i]), offered_until_ns_, now);
      if (!link_.offer(offered_until_ns_, burst[i], frame_priority(burst[i])))
        rte_pktmbuf_free(burst[i]);
    }
  }
  const std::uint64_t before = delivered_;
  deliver(now);
  offered_until_ns_ = now;  // the link has run up to now: later packets come in after it
  publication_.publish(link_.queue_depth(), link_.counters());
  return static_cast<unsigned>(delivered_ - before);
}

void RingLink::deliver(std::uint64_t now_ns) {
  arrived_.clear();
  lost_.clear();
  link_.poll(now_ns, arrived_, lost_);
  for (rte_mbuf* packet : lost_)
    rte_pktmbuf_free(packet);
  const ArrivalStamp& stamp = arrival_stamp();
  rte_mbuf* burst[kBurst];
  for (std::size_t first = 0; first < arrived_.size(); first += kBurst) {
    const auto n = static_cast<unsigned>(std::min<std::size_t>(kBurst, arrived_.size() - first));
    for (unsigned i = 0; i < n; ++i) {
      rte_mbuf* packet = arrived_[first + i].tag;
      *RTE_MBUF_DYNFIELD(packet, stamp.offset, rte_mbuf_timestamp_t*) = arrived_[first + i].time_ns;
      packet->ol_flags |= stamp.flag;
      burst[i] = packet;
    }
    const unsigned queued =
        rte_ring_enqueue_burst(to_peer_, reinterpret_cast<void**>(burst), n, nullptr);
    delivered_ += queued;
    peer_full_ += n - queued;
    for (unsigned i = queued; i < n; ++i)
      rte_pktmbuf_free(burst[i]);
  }
}

void RingLink::pause_for(std::uint64_t duration_ns, PriorityMask priorities) {
  link_.pause_for(monotonic_ns(), duration_ns, priorities);
}

void RingLink::pause_periodically(std::uint64_t every_ns, std::uint64_t length_ns,
                                  PriorityMask priorities) {
  link_.pause_periodically(monotonic_ns(), every_ns, length_ns, priorities);
}

void RingLink::stop_pausing() {
  link_.stop_pausing();
}

RingLinkStats RingLink::stats() const {
  const LinkCounters& c = link_.counters();
  return {c.offered, c.sent,     delivered_,     c.dropped_queue,
          c.lost,    peer_full_, c.pause_frames, c.pause_ns};
}

std::uint64_t RingLink::in_flight() const {
  return rte_ring_count(from_port_) + link_.in_flight();
}

std::uint32_t RingLink::queue_depth() const {
  return rte_ring_count(from_port_) + link_.queue_depth();
}

std::optional<std::uint64_t> RingLink::arrival_ns(const rte_mbuf* packet) {
  const ArrivalStamp& stamp = arrival_stamp();
  if ((packet->ol_flags & stamp.flag) == 0) return std::nullopt;
  return *RTE_MBUF_DYNFIELD(packet, stamp.offset, const rte_mbuf_timestamp_t*);
}

}  // namespace braid::linkemu
