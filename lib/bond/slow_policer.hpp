// Policing of the Slow Protocols frames (EtherType 0x8809) that arrive on one bond member, on
// a worker before the ring to the protocol loop and on the protocol loop itself. A flood of
// them must cost a bounded share of the protocol loop, and must not crowd out the partner's
// own LACPDUs (with one shared limit, a flood of 300,000 frames a second lets a 1-a-second
// LACPDU through about once in an hour, and the member expires in 3 s):
//   - subtypes braid does not run (anything but LACP, 1, and Marker, 2: OAM, ESMC, ...) are
//     refused at once, at no cost to either limit;
//   - frames from the member's partner (the source address of the LACPDUs that keep the member
//     collecting; 0: none yet) have a token bucket of their own;
//   - every other source shares a second one (a partner not yet heard, or a forger).
// Pure (no DPDK): the clock is injected, in any unit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/token_bucket.hpp"

namespace braid::bond {

inline constexpr std::uint8_t kSlowSubtypeLacp = 1;
inline constexpr std::uint8_t kSlowSubtypeMarker = 2;
// Each of the two buckets: a fast-rate partner sends 1 LACPDU a second, and a few more on
// changes; marker exchanges are rarer still.
inline constexpr std::uint64_t kSlowFramesPerSecond = 64;
inline constexpr std::uint64_t kSlowFramesBurst = 32;

// Slots of a bond's ring from the workers to the protocol loop (bond.cpp; the memory plan,
// lib/engine/memory_plan.hpp, counts it): LACPDUs arrive at a few per second per member.
inline constexpr std::size_t kSlowRingSlots = 1024;

enum class SlowVerdict { kAccept, kPoliced, kUnsupported };

// The 6-byte source address of an Ethernet frame as one integer (0 is never a station's).
inline std::uint64_t source_address_key(const std::uint8_t* frame) {
  std::uint64_t key = 0;
  for (std::size_t i = 6; i < 12; ++i)
    key = key << 8 | frame[i];
  return key;
}

class SlowPolicer {
 public:
  explicit SlowPolicer(std::uint64_t ticks_per_second)
      : partner_(kSlowFramesPerSecond, ticks_per_second, kSlowFramesBurst),
        others_(kSlowFramesPerSecond, ticks_per_second, kSlowFramesBurst) {}

  // `frame`: from the Ethernet header, `length` bytes of it readable; `partner_source`: the
  // member's trusted source (source_address_key), 0 when there is none.
  SlowVerdict admit(const std::uint8_t* frame, std::size_t length, std::uint64_t partner_source,
                    std::uint64_t now) {
    constexpr std::size_t kSubtypeOffset = 14;
    if (length <= kSubtypeOffset) return SlowVerdict::kUnsupported;
    const std::uint8_t subtype = frame[kSubtypeOffset];
    if (subtype != kSlowSubtypeLacp && subtype != kSlowSubtypeMarker) {
      return SlowVerdict::kUnsupported;
    }
    const bool from_partner = partner_source != 0 && source_address_key(frame) == partner_source;
    TokenBucket& bucket = from_partner ? partner_ : others_;
    return bucket.take(now) ? SlowVerdict::kAccept : SlowVerdict::kPoliced;
  }

 private:
  TokenBucket partner_;
  TokenBucket others_;
};

}  // namespace braid::bond
