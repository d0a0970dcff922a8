// The simulators' clock: a world's step(limit) moves now_ns_ to the next thing due (at most
// `limit`) and runs it; run_until*() repeat steps until a time, or until a condition holds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

namespace braid::sim {

class SteppedClock {
 public:
  virtual ~SteppedClock() = default;

  // Steps until `time_ns`, then once more to settle everything due exactly then.
  void run_until(std::uint64_t time_ns) {
    while (now_ns_ < time_ns)
      step(time_ns);
    step(time_ns);
  }
  // Runs until `done()` holds (checked after every step) or `limit_ns` is reached; returns the
  // simulated time it first held.
  std::optional<std::uint64_t> run_until_true(const std::function<bool()>& done,
                                              std::uint64_t limit_ns) {
    if (done()) return now_ns_;
    while (now_ns_ < limit_ns) {
      step(limit_ns);
      if (done()) return now_ns_;
    }
    return std::nullopt;
  }
  std::uint64_t now() const { return now_ns_; }

 protected:
  virtual void step(std::uint64_t limit_ns) = 0;

  std::uint64_t now_ns_ = 0;
};

}  // namespace braid::sim
