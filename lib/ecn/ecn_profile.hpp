// The marking profile of one TX queue: how likely a packet is to be marked CE at a queue depth.
// It is the switch RED/DCQCN profile, on the instantaneous depth in descriptors:
//
//   p(depth) = 0                                               depth <= kmin
//            = pmax * (depth - kmin) / (kmax - kmin)           kmin < depth <= kmax
//            = 1                                               depth > kmax
//
// RED (Floyd and Jacobson, "Random Early Detection Gateways", 1993, section 4) marks with a
// probability rising linearly from 0 at minth to maxp at maxth and marks every packet above maxth;
// DCQCN (Zhu et al., SIGCOMM 2015, section 3.1) names the same three knobs Kmin, Kmax and Pmax and
// runs them on the instantaneous queue, as switch ASICs do. The vendors' WRED/ECN settings are
// these: NVIDIA Onyx/Cumulus traffic-class ECN `min-threshold`, `max-threshold` and
// `probability`, Cisco `random-detect` min-threshold, max-threshold and mark-probability
// denominator (1/10 at the max threshold by default), Cisco ACI `wred_min_threshold`,
// `wred_max_threshold`, `wred_probability`. Switches count thresholds in bytes or buffer cells;
// braid's queue probe reads descriptors in use, so the thresholds here are descriptors.
//
// pmax_permille = 0 is a step at kmax: nothing below it, everything above it (DCTCP's single
// marking threshold K, RFC 8257 section 3.1, with K = kmax).
#pragma once

#include <cstdint>
#include <string>

namespace braid::ecn {

inline constexpr std::uint32_t kPermille = 1000;
// A DPDK TX ring holds at most 65535 descriptors (rte_eth_tx_queue_setup's nb_tx_desc is 16 bits).
inline constexpr std::uint32_t kMaxQueueDescriptors = 65535;
// Probabilities as 32-bit thresholds: a packet is marked when a 32-bit random draw is below the
// threshold, so kAlwaysMark (2^32) marks every packet and 0 none.
inline constexpr std::uint64_t kAlwaysMark = std::uint64_t{1} << 32;

struct EcnProfile {
  // Defaults for a 1024-descriptor TX ring: start marking at an eighth full, at most 10% by half
  // full (Cisco's default denominator), then every packet.
  std::uint32_t kmin_descriptors = 128;
  std::uint32_t kmax_descriptors = 512;
  std::uint32_t pmax_permille = 100;
};

// An empty string when the profile is consistent, else what is wrong and what to do, e.g.
// "ecn: kmax (100) must be above kmin (200)".
std::string profile_error(const EcnProfile& profile);

// p(depth) as a 32-bit threshold, floor(p * 2^32), kAlwaysMark above kmax. The profile must be
// valid (profile_error empty).
std::uint64_t mark_threshold(const EcnProfile& profile, std::uint32_t depth_descriptors);

// p(depth) as a fraction, for tests and for the console.
double mark_probability(const EcnProfile& profile, std::uint32_t depth_descriptors);

}  // namespace braid::ecn
