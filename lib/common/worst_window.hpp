// The worst (largest) value recorded in each of the last kSeconds whole seconds, and the worst
// of them: "worst over the last minute" for lateness and durations, in constant memory.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace braid {

class WorstWindow {
 public:
  static constexpr std::uint64_t kSecondNs = 1'000'000'000;
  static constexpr std::size_t kSeconds = 60;

  void add(std::uint64_t now_ns, std::uint64_t value) {
    const std::uint64_t second = now_ns / kSecondNs;
    Slot& slot = slots_[second % kSeconds];
    if (slot.second != second) slot = {second, 0};
    slot.worst = std::max(slot.worst, value);
  }
  std::uint64_t worst(std::uint64_t now_ns) const {
    const std::uint64_t second = now_ns / kSecondNs;
    std::uint64_t worst = 0;
    for (const Slot& slot : slots_) {
      if (slot.second + kSeconds > second) worst = std::max(worst, slot.worst);
    }
    return worst;
  }

 private:
  struct Slot {
    std::uint64_t second = UINT64_MAX / 2;  // never within a window
    std::uint64_t worst = 0;
  };
  std::array<Slot, kSeconds> slots_{};
};

}  // namespace braid
