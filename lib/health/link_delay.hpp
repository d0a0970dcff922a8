// up_delay / down_delay of a member's link, with Linux bonding's updelay/downdelay semantics
// (Documentation/networking/bonding.rst): a link that goes down stays in use until it has been
// down for down_delay; a link that comes up is used once it has been up for up_delay. A change
// that reverts before its delay is over is forgotten: the member never saw it. 0 = at once. The
// link starts down, and its first up waits for up_delay too (Linux applies updelay at enslave).
#pragma once

#include <cstdint>
#include <optional>

namespace braid::health {

class LinkDelay {
 public:
  LinkDelay(std::uint64_t up_delay_ns, std::uint64_t down_delay_ns)
      : up_delay_ns_(up_delay_ns), down_delay_ns_(down_delay_ns) {}

  // The raw link state (carrier and BFD) at now_ns; true when the delayed state changed.
  bool update(bool raw_up, std::uint64_t now_ns);

  bool up() const { return up_; }
  // The delayed state changed last at this time (0: never).
  std::uint64_t changed_ns() const { return changed_ns_; }
  // While the raw state differs from the delayed one: when the change takes effect.
  std::optional<std::uint64_t> pending_until_ns() const { return pending_until_ns_; }

 private:
  std::uint64_t up_delay_ns_;
  std::uint64_t down_delay_ns_;
  bool up_ = false;
  std::uint64_t changed_ns_ = 0;
  std::optional<std::uint64_t> pending_until_ns_;
};

}  // namespace braid::health
