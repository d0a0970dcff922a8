// One writer publishes a value of a few words; readers on other threads take a copy that is all
// of one publication, never fields of two (a sequence lock: the count is odd while the writer
// is mid-way, and a reader that saw it change tries again). Readers never block the writer; a
// reader that keeps meeting a writer mid-way gives up after `attempts` and gets nothing, which
// callers read as "no measurement" (never as a mix).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

namespace braid {

template <typename T>
class SeqLock {
  static_assert(std::is_trivially_copyable_v<T>);
  static constexpr std::size_t kWords = (sizeof(T) + 7) / 8;

 public:
  SeqLock() { store(T{}); }
  SeqLock(const SeqLock&) = delete;
  SeqLock& operator=(const SeqLock&) = delete;

  // The writer (one thread only).
  void store(const T& value) {
    std::array<std::uint64_t, kWords> words{};
    std::memcpy(words.data(), &value, sizeof(T));
    const std::uint64_t sequence = sequence_.load(std::memory_order_relaxed);
    sequence_.store(sequence + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    for (std::size_t w = 0; w < kWords; ++w)
      words_[w].store(words[w], std::memory_order_relaxed);
    sequence_.store(sequence + 2, std::memory_order_release);
  }

  // Any thread.
  std::optional<T> load(unsigned attempts = 64) const {
    for (unsigned attempt = 0; attempt < attempts; ++attempt) {
      const std::uint64_t before = sequence_.load(std::memory_order_acquire);
      if ((before & 1) != 0) continue;  // the writer is mid-way
      std::array<std::uint64_t, kWords> words{};
      for (std::size_t w = 0; w < kWords; ++w)
        words[w] = words_[w].load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (sequence_.load(std::memory_order_relaxed) != before) continue;
      T value{};
      std::memcpy(static_cast<void*>(&value), words.data(), sizeof(T));
      return value;
    }
    return std::nullopt;
  }

 private:
  std::atomic<std::uint64_t> sequence_{0};
  std::array<std::atomic<std::uint64_t>, kWords> words_{};
};

}  // namespace braid
