#include "linkemu/link_registry.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

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

// One publication per port in `map`, under the registry's lock.
template <typename T>
void attach_to(std::map<std::uint16_t, const T*>& map, std::uint16_t port_id, const T* item) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  map[port_id] = item;
}

template <typename T>
void detach_from(std::map<std::uint16_t, const T*>& map, std::uint16_t port_id, const T* item) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  const auto it = map.find(port_id);
  if (it != map.end() && it->second == item) map.erase(it);
}

template <typename T, typename Read>
auto read_from(std::map<std::uint16_t, const T*>& map, std::uint16_t port_id, Read read)
    -> std::optional<decltype(read(std::declval<const T&>()))> {
  const std::lock_guard<std::mutex> guard(registry_lock);
  const auto it = map.find(port_id);
  if (it == map.end()) return std::nullopt;
  return read(*it->second);
}

}  // namespace

void attach_rx_errors(std::uint16_t port_id, const RxErrorPublication* errors) {
  attach_to(rx_error_registry(), port_id, errors);
}

void detach_rx_errors(std::uint16_t port_id, const RxErrorPublication* errors) {
  detach_from(rx_error_registry(), port_id, errors);
}

std::map<std::uint16_t, std::uint64_t>& read_delays() {
  static std::map<std::uint16_t, std::uint64_t> delays;
  return delays;
}

void set_counter_read_delay(std::uint16_t port_id, std::uint64_t delay_ns) {
  const std::lock_guard<std::mutex> guard(registry_lock);
  if (delay_ns == 0) {
    read_delays().erase(port_id);
  } else {
    read_delays()[port_id] = delay_ns;
  }
}

void emulate_counter_read(std::uint16_t port_id) {
  std::uint64_t delay_ns = 0;
  {
    const std::lock_guard<std::mutex> guard(registry_lock);
    const auto it = read_delays().find(port_id);
    if (it != read_delays().end()) delay_ns = it->second;
  }
  if (delay_ns != 0) std::this_thread::sleep_for(std::chrono::nanoseconds(delay_ns));
}

std::optional<std::uint64_t> injected_crc_errors(std::uint16_t port_id) {
  return read_from(rx_error_registry(), port_id,
                   [](const RxErrorPublication& errors) { return errors.crc_errors(); });
}

void LinkPublication::publish(std::uint32_t queued, const LinkCounters& counters) {
  queued_.store(queued, std::memory_order_relaxed);
  sent_.store(counters.sent, std::memory_order_relaxed);
  dropped_queue_.store(counters.dropped_queue, std::memory_order_relaxed);
  pause_frames_.store(counters.pause_frames, std::memory_order_relaxed);
  pause_ns_.store(counters.pause_ns, std::memory_order_relaxed);
  for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
    priority_pause_frames_[p].store(counters.priority_pause_frames[p], std::memory_order_relaxed);
    priority_pause_ns_[p].store(counters.priority_pause_ns[p], std::memory_order_relaxed);
  }
}

LinkReading LinkPublication::read() const {
  LinkCounters counters;
  counters.sent = sent_.load(std::memory_order_relaxed);
  counters.dropped_queue = dropped_queue_.load(std::memory_order_relaxed);
  counters.pause_frames = pause_frames_.load(std::memory_order_relaxed);
  counters.pause_ns = pause_ns_.load(std::memory_order_relaxed);
  for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
    counters.priority_pause_frames[p] = priority_pause_frames_[p].load(std::memory_order_relaxed);
    counters.priority_pause_ns[p] = priority_pause_ns_[p].load(std::memory_order_relaxed);
  }
  const std::uint32_t waiting = waiting_ ? waiting_() : 0;
  return {queued_.load(std::memory_order_relaxed) + waiting, congestion_of(counters)};
}

void attach_link(std::uint16_t port_id, const LinkPublication* link) {
  attach_to(registry(), port_id, link);
}

void detach_link(std::uint16_t port_id, const LinkPublication* link) {
  detach_from(registry(), port_id, link);
}

std::optional<LinkReading> attached_link(std::uint16_t port_id) {
  return read_from(registry(), port_id, [](const LinkPublication& link) { return link.read(); });
}

}  // namespace braid::linkemu
