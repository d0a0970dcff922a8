// The bond's l34 hash pass over a burst (lib/flow/dpdk/mbuf_hash.cpp runs it on mbufs): four
// frames at a time through the four-lane path (l34_fast_path_x4.hpp), the full parser for the
// lanes it declines (options, fragments, extension headers...; the scalar fast path takes no
// frame the four-lane one declines). After each group it shows the group to a LaneVisitor, which
// may read the frames while their bytes are in L1: the traffic classifier reads its fields there
// (classify/classify_burst.hpp). Free of DPDK (frame_of(i): frame i's first segment; prefetch(i):
// ask for its bytes) so the benchmarks time the code the workers run.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "common/bytes.hpp"
#include "flow/flow_hash.hpp"
#include "flow/l34_fast_path_x4.hpp"

namespace braid::flow {

// How far ahead of the frame being hashed to prefetch (its headers sit in the first cache line of
// the data room).
inline constexpr std::size_t kL34PrefetchDistance = 8;

// A group of frames the hash pass went over: frames[i] is frame start + i of the burst, for
// i < count; bit i of `taken` is set where the l34 fast path took frames[i] (so its shape is one
// l34_fields.hpp reads).
struct L34Lanes {
  std::uint16_t start = 0;
  const ByteSpan* frames = nullptr;
  unsigned count = 0;
  unsigned taken = 0;
};

// Called once per group (an indirect call per four frames, so the hash pass stays compiled once).
struct LaneVisitor {
  void (*visit)(void* context, const L34Lanes& lanes) = nullptr;
  void* context = nullptr;

  void operator()(const L34Lanes& lanes) const {
    if (visit != nullptr) visit(context, lanes);
  }
};

namespace detail {

inline void hash_declined_lanes(const FlowHasher& hasher,
                                const std::array<ByteSpan, kL34Lanes>& frames, unsigned lanes,
                                unsigned hashed, std::uint32_t* hashes) {
  for (unsigned i = 0; i < lanes; ++i) {
    if ((hashed >> i & 1) == 0) hashes[i] = hasher.hash_frame(frames[i]);
  }
}

}  // namespace detail

// hashes[i] for i < count under policy l34; `visitor` sees every group once it is hashed.
template <typename FrameOf, typename Prefetch>
void hash_l34_frames(const FlowHasher& hasher, std::uint16_t count, const FrameOf& frame_of,
                     const Prefetch& prefetch, std::uint32_t* hashes,
                     const LaneVisitor& visitor = {}) {
  constexpr unsigned kAllLanes = (1u << kL34Lanes) - 1;
  std::array<ByteSpan, kL34Lanes> frames;
  std::uint16_t start = 0;
  for (; start + kL34Lanes <= count; start += kL34Lanes) {
    for (unsigned i = 0; i < kL34Lanes; ++i) {
      if (start + i + kL34PrefetchDistance < count) prefetch(start + i + kL34PrefetchDistance);
      frames[i] = frame_of(start + i);
    }
    const unsigned hashed = try_hash_l34_x4(frames, hashes + start);
    if (hashed != kAllLanes)
      detail::hash_declined_lanes(hasher, frames, kL34Lanes, hashed, hashes + start);
    visitor({start, frames.data(), kL34Lanes, hashed});
  }
  if (start == count) return;
  const unsigned lanes = count - start;
  for (unsigned i = 0; i < kL34Lanes; ++i)
    frames[i] = i < lanes ? frame_of(start + i) : ByteSpan();
  std::array<std::uint32_t, kL34Lanes> tail{};
  const unsigned hashed = try_hash_l34_x4(frames, tail.data());
  detail::hash_declined_lanes(hasher, frames, lanes, hashed, tail.data());
  std::copy_n(tail.data(), lanes, hashes + start);
  visitor({start, frames.data(), lanes, hashed & ((1u << lanes) - 1)});
}

}  // namespace braid::flow
