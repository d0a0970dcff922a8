// A bounded single-producer, single-consumer queue of pointers: lock-free, so neither side ever
// waits for the other (the protocol loop must never wait on management work). Pure.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace braid {

template <typename T>
class SpscQueue {
 public:
  // `capacity` is rounded up to a power of two.
  explicit SpscQueue(std::size_t capacity) {
    std::size_t size = 1;
    while (size < capacity)
      size <<= 1;
    slots_.reset(new T*[size]);
    mask_ = size - 1;
  }

  // Producer side. False when full.
  bool push(T* item) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) > mask_) return false;
    slots_[tail & mask_] = item;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  // Consumer side. nullptr when empty.
  T* pop() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) return nullptr;
    T* item = slots_[head & mask_];
    head_.store(head + 1, std::memory_order_release);
    return item;
  }
  bool empty() const {
    return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire);
  }
  std::size_t size() const {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
  }

 private:
  std::unique_ptr<T*[]> slots_;
  std::size_t mask_ = 0;
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
};

}  // namespace braid
