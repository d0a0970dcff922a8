#include "linkemu/rx_errors.hpp"

#include <stdexcept>
#include <string>

namespace braid::linkemu {

RxErrorInjector::RxErrorInjector(std::uint16_t port_id, double error_fraction) : port_id_(port_id) {
  set_error_fraction(error_fraction);
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(port_id, &info) != 0)
    throw std::runtime_error("rx errors: no port " + std::to_string(port_id));
  for (std::uint16_t q = 0; q < info.nb_rx_queues; ++q) {
    const rte_eth_rxtx_callback* callback = rte_eth_add_rx_callback(port_id, q, on_receive, this);
    if (callback == nullptr)
      throw std::runtime_error("rx errors: cannot add an RX callback on port " +
                               std::to_string(port_id) + " queue " + std::to_string(q));
    callbacks_.push_back(callback);
  }
  attach_rx_errors(port_id_, &publication_);
}

RxErrorInjector::~RxErrorInjector() {
  detach_rx_errors(port_id_, &publication_);
  for (std::size_t q = 0; q < callbacks_.size(); ++q)
    rte_eth_remove_rx_callback(port_id_, static_cast<std::uint16_t>(q), callbacks_[q]);
}

void RxErrorInjector::set_error_fraction(double fraction) {
  fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
  threshold_.store(static_cast<std::uint64_t>(fraction * 4294967296.0), std::memory_order_relaxed);
}

std::uint16_t RxErrorInjector::on_receive(std::uint16_t, std::uint16_t, rte_mbuf** packets,
                                          std::uint16_t count, std::uint16_t, void* user) {
  auto* self = static_cast<RxErrorInjector*>(user);
  const std::uint64_t threshold = self->threshold_.load(std::memory_order_relaxed);
  if (threshold == 0) return count;
  std::uint16_t kept = 0;
  std::uint64_t bad = 0;
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::uint64_t before = self->credit_.fetch_add(threshold, std::memory_order_relaxed);
    if (((before + threshold) >> 32) != (before >> 32)) {
      rte_pktmbuf_free(packets[i]);
      ++bad;
    } else {
      packets[kept++] = packets[i];
    }
  }
  self->publication_.add(bad);
  return kept;
}

}  // namespace braid::linkemu
