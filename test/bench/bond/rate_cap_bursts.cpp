// Issue 34 item 7, a benchmark (not a test): what a class's rate cap delivers against the cap,
// per frame size, with the meter braid's workers run (bond::ClassPolicer: rte_meter srTCM,
// colour-blind) on simulated time. Frames come in bursts of 32 at once (what one worker takes
// in one RX burst, metered at one TSC reading), the bursts evenly spaced so that the class offers
// a given fraction of its cap. Per frame size, offered load and committed burst: what passed, as
// a fraction of the cap and of what was offered. The committed bursts: 64 KiB (the default until
// issue 34) and the default now, what the cap passes in 1 ms.
//
//   scripts/build release --targets rate_cap_bursts && build/test/bench/bond/rate_cap_bursts
#include <rte_cycles.h>

#include <array>
#include <cstdint>
#include <cstdio>

#include "bond/dpdk/class_policer.hpp"
#include "classify/class_spec.hpp"
#include "eal_environment.hpp"

namespace braid::test {
namespace {

constexpr std::uint32_t kCapMbps = 10'000;  // one worker's part of the cap
constexpr std::uint32_t kFramesPerBurst = 32;
constexpr double kSeconds = 2.0;

struct Result {
  double of_cap = 0;
  double of_offered = 0;
};

Result run(std::uint32_t frame_bytes, double offered_of_cap, std::uint32_t burst_kb) {
  bond::ClassLimits limits;
  const double cap_bytes_per_s = kCapMbps * 1e6 / 8;
  limits.cap_bytes_per_s[0].store(static_cast<std::uint64_t>(cap_bytes_per_s));
  limits.version.store(1);
  std::array<std::uint32_t, classify::kMaxClasses> burst_bytes{};
  burst_bytes[0] = burst_kb * 1024;
  bond::ClassPolicer policer;
  policer.refresh(limits, 1, burst_bytes);  // a full bucket from now
  const double hz = static_cast<double>(rte_get_tsc_hz());
  const double bursts_per_s =
      offered_of_cap * cap_bytes_per_s / (static_cast<double>(frame_bytes) * kFramesPerBurst);
  const double cycles_apart = hz / bursts_per_s;
  const auto bursts = static_cast<std::uint64_t>(bursts_per_s * kSeconds);
  const std::uint64_t start = rte_get_tsc_cycles();
  std::uint64_t passed = 0;
  for (std::uint64_t b = 0; b < bursts; ++b) {
    const auto tsc = start + static_cast<std::uint64_t>(static_cast<double>(b) * cycles_apart);
    for (std::uint32_t i = 0; i < kFramesPerBurst; ++i) {
      if (policer.within_cap(0, tsc, frame_bytes)) passed += frame_bytes;
    }
  }
  const double offered = static_cast<double>(bursts) * kFramesPerBurst * frame_bytes;
  const double seconds = static_cast<double>(bursts) * cycles_apart / hz;
  return {static_cast<double>(passed) / seconds / cap_bytes_per_s,
          static_cast<double>(passed) / offered};
}

}  // namespace
}  // namespace braid::test

int main() {
  using namespace braid::test;
  EalEnvironment eal;
  eal.SetUp();
  const std::uint32_t old_default = 64;
  const std::uint32_t new_default = braid::classify::default_burst_kb(kCapMbps);
  std::printf("cap %u Mbit/s, bursts of %u frames at once, %.0f s of simulated time per row\n\n",
              kCapMbps, kFramesPerBurst, kSeconds);
  std::printf(
      "| frame | offered (of cap) | burst_kb | delivered (of cap) | delivered (of offered) |\n");
  std::printf("|---:|---:|---:|---:|---:|\n");
  for (const std::uint32_t frame : {64u, 1500u, 9000u}) {
    for (const double offered : {0.5, 1.0, 2.0}) {
      for (const std::uint32_t burst : {old_default, new_default}) {
        const Result r = run(frame, offered, burst);
        std::printf("| %u B | %.0f%% | %u | %.1f%% | %.1f%% |\n", frame, offered * 100, burst,
                    r.of_cap * 100, r.of_offered * 100);
      }
    }
  }
  eal.TearDown();
  return 0;
}
