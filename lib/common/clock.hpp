// The control plane's clock: monotonic nanoseconds. Protocol cores take `now_ns` as a parameter;
// only the wiring (app, engine, tests driving real devices) reads the clock itself.
#pragma once

#include <chrono>
#include <cstdint>

namespace braid {

inline std::uint64_t monotonic_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace braid
