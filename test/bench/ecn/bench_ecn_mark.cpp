// ns/packet of braid's ECN marking (lib/ecn) on bursts of 32 ECT frames, as a worker would run it
// before a TX burst: one threshold for the queue's depth, then per packet one decision and, when
// chosen, mark_ce. Profile: the default (kmin 128, kmax 512, pmax 10%) and a steep one (pmax 100%,
// so the ramp's middle is a coin toss the branch predictor cannot learn). Depths: 100 (below kmin:
// no draw), 320 (the ramp's middle), 600 (above kmax: every packet). Frames: IPv4/UDP, IPv6/UDP,
// and a mix of untagged, 802.1Q and QinQ IPv4/IPv6, 64-byte-ish RoCEv2-like frames. A marked
// frame is put back to ECT at once (three byte stores, included) so each burst marks afresh.
// Results: doc/benchmarks.md, "ECN marking".
#include <benchmark/benchmark.h>

#include <vector>

#include "ecn/ce_mark.hpp"
#include "ecn/ecn_marker.hpp"
#include "ecn_frames.hpp"

namespace braid::ecn {
namespace {

constexpr std::size_t kBurst = 32;
constexpr std::uint8_t kEct0 = 2, kEct1 = 1;
constexpr EcnProfile kDefault{};
constexpr EcnProfile kSteep{128, 512, 1000};

enum class Family { ipv4, ipv6, tagged_mix };

struct Burst {
  std::vector<std::vector<std::uint8_t>> frames;
  std::vector<std::vector<std::uint8_t>> pristine;
  std::vector<std::size_t> l3;  // where each frame's IP header starts
};

Burst make_burst(Family family) {
  Burst burst;
  for (std::size_t i = 0; i < kBurst; ++i) {
    const std::uint8_t ect = i % 2 == 0 ? kEct0 : kEct1;
    std::vector<std::uint16_t> tags;
    bool v6 = family == Family::ipv6;
    if (family == Family::tagged_mix) {
      if (i % 3 == 1) tags = {0x8100};
      if (i % 3 == 2) tags = {0x88A8, 0x8100};
      v6 = i % 4 == 3;
    }
    burst.frames.push_back(v6 ? test::ipv6_frame(ect, tags, 8)
                              : test::ipv4_frame(ect, tags, {}, 8));
    burst.l3.push_back(14 + 4 * tags.size());
  }
  burst.pristine = burst.frames;
  return burst;
}

// Puts a marked frame back to ECT: the ECN octet and, for IPv4, the checksum (for IPv6 these are
// unchanged payload-length and next-header octets: storing them back is harmless).
void restore(Burst& burst, std::size_t i) {
  const std::size_t l3 = burst.l3[i];
  for (std::size_t at : {l3 + 1, l3 + 10, l3 + 11})
    burst.frames[i][at] = burst.pristine[i][at];
}

// CPU time per packet, shown with its unit (e.g. "3.1ns").
void set_time_per_packet(benchmark::State& state) {
  state.counters["per_packet"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBurst),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Decide(benchmark::State& state) {
  const EcnProfile profile = state.range(1) != 0 ? kSteep : kDefault;
  EcnMarker marker(profile, 1);
  const auto depth = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) {
    marker.begin_burst(depth);
    unsigned chosen = 0;
    for (std::size_t i = 0; i < kBurst; ++i)
      chosen += marker.decide() ? 1 : 0;
    benchmark::DoNotOptimize(chosen);
  }
  set_time_per_packet(state);
}

void BM_DecideAndMark(benchmark::State& state, Family family) {
  const EcnProfile profile = state.range(1) != 0 ? kSteep : kDefault;
  EcnMarker marker(profile, 1);
  const auto depth = static_cast<std::uint32_t>(state.range(0));
  Burst burst = make_burst(family);
  std::uint64_t marked = 0;
  for (auto _ : state) {
    marker.begin_burst(depth);
    for (std::size_t i = 0; i < kBurst; ++i) {
      if (!marker.decide()) continue;
      if (mark_ce(burst.frames[i]) == MarkResult::marked) {
        ++marked;
        restore(burst, i);
      }
    }
    benchmark::ClobberMemory();
  }
  state.counters["marked_fraction"] =
      static_cast<double>(marked) / static_cast<double>(state.iterations() * kBurst);
  set_time_per_packet(state);
}

// mark_ce alone on every frame: the rewrite's own cost.
void BM_MarkAll(benchmark::State& state, Family family) {
  Burst burst = make_burst(family);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kBurst; ++i) {
      benchmark::DoNotOptimize(mark_ce(burst.frames[i]));
      restore(burst, i);
    }
    benchmark::ClobberMemory();
  }
  set_time_per_packet(state);
}

// Args: depth, steep profile (0/1).
void depths(benchmark::internal::Benchmark* bench) {
  for (int steep : {0, 1}) {
    for (int depth : {100, 320, 600})
      bench->Args({depth, steep});
  }
}

BENCHMARK(BM_Decide)->Apply(depths);
BENCHMARK_CAPTURE(BM_DecideAndMark, ipv4, Family::ipv4)->Apply(depths);
BENCHMARK_CAPTURE(BM_DecideAndMark, ipv6, Family::ipv6)->Apply(depths);
BENCHMARK_CAPTURE(BM_DecideAndMark, tagged_mix, Family::tagged_mix)->Apply(depths);
BENCHMARK_CAPTURE(BM_MarkAll, ipv4, Family::ipv4);
BENCHMARK_CAPTURE(BM_MarkAll, ipv6, Family::ipv6);
BENCHMARK_CAPTURE(BM_MarkAll, tagged_mix, Family::tagged_mix);

}  // namespace
}  // namespace braid::ecn

BENCHMARK_MAIN();
