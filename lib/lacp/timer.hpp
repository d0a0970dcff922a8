// A state-machine timer (6.4.10) over the injected clock: a deadline, nothing that ticks.
#pragma once

#include <cstdint>
#include <limits>

namespace braid::lacp {

inline constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

struct Timer {
  std::uint64_t deadline_ns = kNever;

  void start(std::uint64_t now_ns, std::uint64_t duration_ns) {
    deadline_ns = now_ns + duration_ns;
  }
  void stop() { deadline_ns = kNever; }
  bool running() const { return deadline_ns != kNever; }
  bool expired(std::uint64_t now_ns) const { return running() && now_ns >= deadline_ns; }
};

}  // namespace braid::lacp
