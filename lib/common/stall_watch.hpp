// Whether the threads that must keep moving still do: each names a counter it advances (the
// protocol loop's iterations, a worker's poll loops) and the watcher, on another thread, samples
// them and tells which has not moved for longer than a limit. A stalled thread cannot hide its
// own stall, since it never runs this. Pure: values and time are injected.
//
//   StallWatch watch(3'000'000'000);
//   watch.add("protocol loop");                 // index 0
//   watch.observe(0, loop.iterations(), now_ns);
//   for (const auto& s : watch.stalled(now_ns)) ...  // s.name, s.for_ns
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace braid {

class StallWatch {
 public:
  struct Thread {
    std::string name;
    std::uint64_t value = 0;
    std::uint64_t moved_ns = 0;  // when `value` last changed (or was first seen)
    bool seen = false;
  };

  explicit StallWatch(std::uint64_t limit_ns) : limit_ns_(limit_ns) {}

  std::size_t add(std::string name) {
    threads_.push_back({std::move(name)});
    return threads_.size() - 1;
  }

  void observe(std::size_t index, std::uint64_t value, std::uint64_t now_ns) {
    Thread& thread = threads_.at(index);
    if (!thread.seen || value != thread.value) thread.moved_ns = now_ns;
    thread.value = value;
    thread.seen = true;
  }

  // How long the thread has not moved, as of its last observation's time `now_ns`.
  std::uint64_t still_for_ns(std::size_t index, std::uint64_t now_ns) const {
    const Thread& thread = threads_.at(index);
    return thread.seen && now_ns > thread.moved_ns ? now_ns - thread.moved_ns : 0;
  }
  bool is_stalled(std::size_t index, std::uint64_t now_ns) const {
    return still_for_ns(index, now_ns) > limit_ns_;
  }

  const std::vector<Thread>& threads() const { return threads_; }
  std::uint64_t limit_ns() const { return limit_ns_; }

 private:
  std::uint64_t limit_ns_;
  std::vector<Thread> threads_;
};

}  // namespace braid
