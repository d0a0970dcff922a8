// libFuzzer target: ECN marking on hostile profiles and hostile frames.
//
// Input layout (test/fuzz/ecn/make_corpus.py writes seeds in it):
//   u16 kmin, u16 kmax, u16 pmax_permille, u16 depth (big-endian), then the frame: every byte left
//
// Checks: a valid profile's threshold is 0 at kmin, rises with the depth, never passes 2^32 and is
// 2^32 above kmax; the marker decides what its threshold says at the ends. mark_ce never reads past
// the frame (it is copied into a buffer of exactly its size), leaves every frame it does not mark
// byte for byte as it was, and on a frame it marks changes only the ECN bits (and the IPv4
// checksum) to CE; a marked IPv4 header's checksum verifies iff it verified before; marking again
// says already_ce and changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/inet_checksum.hpp"
#include "ecn/ce_mark.hpp"
#include "ecn/ecn_marker.hpp"

namespace {

using namespace braid;
using namespace braid::ecn;

void check(bool condition) {
  if (!condition) std::abort();
}

std::uint16_t u16(const std::uint8_t* data, std::size_t size, std::size_t at) {
  const unsigned high = at < size ? data[at] : 0;
  const unsigned low = at + 1 < size ? data[at + 1] : 0;
  return static_cast<std::uint16_t>(high << 8 | low);
}

void check_profile(const EcnProfile& profile, std::uint32_t depth) {
  if (!profile_error(profile).empty()) return;
  check(mark_threshold(profile, profile.kmin_descriptors) == 0);
  check(mark_threshold(profile, depth) <= kAlwaysMark);
  check(mark_threshold(profile, depth) <= mark_threshold(profile, depth + 1));
  if (profile.kmax_descriptors < kMaxQueueDescriptors) {
    check(mark_threshold(profile, profile.kmax_descriptors + 1) == kAlwaysMark);
  }
  EcnMarker marker(profile, depth);
  marker.begin_burst(depth);
  const bool decision = marker.decide();
  if (marker.threshold() == 0) check(!decision);
  if (marker.threshold() == kAlwaysMark) check(decision);
}

bool ipv4_verifies(const std::vector<std::uint8_t>& frame, std::size_t l3) {
  const std::size_t header = std::size_t{frame[l3] & 0x0FU} * 4;
  return fold_checksum(add_checksum(0, ByteSpan(frame).subspan(l3, header))) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kHead = 8;
  const EcnProfile profile{u16(data, size, 0), u16(data, size, 2), u16(data, size, 4)};
  check_profile(profile, u16(data, size, 6));

  // Copy the frame into an exactly-sized heap buffer so ASan catches reads one byte past it.
  const std::vector<std::uint8_t> before(data + (size < kHead ? size : kHead), data + size);
  std::vector<std::uint8_t> frame = before;
  const MarkResult result = mark_ce(MutableByteSpan(frame.data(), frame.size()));
  check(to_string(result)[0] != 'u');
  if (result != MarkResult::marked) {
    check(frame == before);
    return 0;
  }
  // The first byte that changed is the TOS / second Traffic Class octet: l3 + 1.
  std::size_t first = 0;
  while (first < frame.size() && frame[first] == before[first])
    ++first;
  check(first > 0 && first < frame.size());
  const std::size_t l3 = first - 1;
  const unsigned version = frame[l3] >> 4;
  if (version == 4) {
    check((before[first] & 3U) == 1 || (before[first] & 3U) == 2);
    check(frame[first] == (before[first] | 3U));
    for (std::size_t i = 0; i < frame.size(); ++i) {
      if (i != first && i != l3 + 10 && i != l3 + 11) check(frame[i] == before[i]);
    }
    check(ipv4_verifies(frame, l3) == ipv4_verifies(before, l3));
  } else {
    check(version == 6);
    check(((before[first] >> 4) & 3U) == 1 || ((before[first] >> 4) & 3U) == 2);
    check(frame[first] == (before[first] | 0x30U));
    for (std::size_t i = first + 1; i < frame.size(); ++i)
      check(frame[i] == before[i]);
  }
  const std::vector<std::uint8_t> marked = frame;
  check(mark_ce(MutableByteSpan(frame.data(), frame.size())) == MarkResult::already_ce);
  check(frame == marked);
  return 0;
}
