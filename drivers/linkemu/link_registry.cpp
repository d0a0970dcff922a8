#include "linkemu/link_registry.hpp"

#include <map>
#include <mutex>

namespace braid::linkemu {
namespace {

std::mutex registry_lock;
std::map<std::uint16_t, const LinkPublication*>& registry() {
  static std::map<std::uint16_t, const LinkPublication*> links;
  return links;
}

std::map<std::uint16_t, const RxErrorPublication*>& rx_error_registry() {
  static std::map<std::uint16_t, const RxErrorPublication*> errors;
  return errors;
}

}  // namespace

void attach_rx_errors(std::uint16_t port_id, const RxErrorPublication* errors) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  rx_error_registry()[port_id] = errors;
}

void detach_rx_errors(std::uint16_t port_id, const RxErrorPublication* errors) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  const auto it = rx_error_registry().find(port_id);
  if (it != rx_error_registry().end() && it->second == errors) rx_error_registry().erase(it);
}

std::optional<std::uint64_t> injected_crc_errors(std::uint16_t port_id) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  const auto it = rx_error_registry().find(port_id);
  if (it == rx_error_registry().end()) return std::nullopt;
  return it->second->crc_errors();
}

void LinkPublication::publish(std::uint32_t queued, const LinkCounters& counters) {
  queued_.store(queued, std::memory_order_relaxed);
  sent_.store(counters.sent, std::memory_order_relaxed);
  dropped_queue_.store(counters.dropped_queue, std::memory_order_relaxed);
  pause_frames_.store(counters.pause_frames, std::memory_order_relaxed);
  pause_ns_.store(counters.pause_ns, std::memory_order_relaxed);
}

LinkReading LinkPublication::read() const {
  LinkCounters counters;
  counters.sent = sent_.load(std::memory_order_relaxed);
  counters.dropped_queue = dropped_queue_.load(std::memory_order_relaxed);
  counters.pause_frames = pause_frames_.load(std::memory_order_relaxed);
  counters.pause_ns = pause_ns_.load(std::memory_order_relaxed);
  const std::uint32_t waiting = waiting_ ? waiting_() : 0;
  return {queued_.load(std::memory_order_relaxed) + waiting, congestion_of(counters)};
}

void attach_link(std::uint16_t port_id, const LinkPublication* link) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  registry()[port_id] = link;
}

void detach_link(std::uint16_t port_id, const LinkPublication* link) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  const auto it = registry().find(port_id);
  if (it != registry().end() && it->second == link) registry().erase(it);
}

std::optional<LinkReading> attached_link(std::uint16_t port_id) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  const auto it = registry().find(port_id);
  if (it == registry().end()) return std::nullopt;
  return it->second->read();
}

}  // namespace braid::linkemu
