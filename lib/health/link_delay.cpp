#include "health/link_delay.hpp"

namespace braid::health {

bool LinkDelay::update(bool raw_up, std::uint64_t now_ns) {
  if (raw_up == up_) {
    pending_until_ns_.reset();  // reverted before its delay was over
    return false;
  }
  if (!pending_until_ns_) pending_until_ns_ = now_ns + (raw_up ? up_delay_ns_ : down_delay_ns_);
  if (now_ns < *pending_until_ns_) return false;
  up_ = raw_up;
  changed_ns_ = now_ns;
  pending_until_ns_.reset();
  return true;
}

}  // namespace braid::health
