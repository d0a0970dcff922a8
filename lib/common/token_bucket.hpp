// A token bucket over an injected clock (any unit: TSC cycles, nanoseconds): `rate` tokens per
// `per` time units, at most `burst` saved up. Policing for Slow Protocols frames (a flood of
// 0x8809 frames must cost a bounded share of the protocol loop). Single-threaded; pure.
#pragma once

#include <algorithm>
#include <cstdint>

namespace braid {

class TokenBucket {
 public:
  TokenBucket(std::uint64_t rate, std::uint64_t per, std::uint64_t burst)
      : rate_(rate), per_(per), burst_(burst), tokens_(burst) {}

  // Takes one token if there is one.
  bool take(std::uint64_t now) {
    refill(now);
    if (tokens_ == 0) return false;
    --tokens_;
    return true;
  }

 private:
  void refill(std::uint64_t now) {
    if (now <= last_) return;
    // Whole tokens only; the remainder of the elapsed time carries over.
    const std::uint64_t earned = (now - last_) * rate_ / per_;
    if (earned == 0) return;
    tokens_ = std::min(burst_, tokens_ + earned);
    last_ = earned >= burst_ ? now : last_ + earned * per_ / rate_;
  }

  std::uint64_t rate_;
  std::uint64_t per_;
  std::uint64_t burst_;
  std::uint64_t tokens_;
  std::uint64_t last_ = 0;
};

}  // namespace braid
