// 100k random flows into 256 buckets per policy: the chi-square statistic must stay under the
// 99% quantile for 255 degrees of freedom. Fixed seed, so the test is deterministic.
#include <gtest/gtest.h>

#include <random>

#include "flow/flow_hash.hpp"
#include "flow/parser.hpp"
#include "frame_builder.hpp"

namespace braid::flow {
namespace {

constexpr std::size_t kFlows = 100'000;
constexpr unsigned kBucketBits = 8;
constexpr std::size_t kBuckets = std::size_t{1} << kBucketBits;
// chi-square 0.99 quantile, 255 degrees of freedom.
constexpr double kChiSquare99 = 310.457;

template <std::size_t N>
std::array<std::uint8_t, N> random_bytes(std::mt19937_64& rng) {
  std::array<std::uint8_t, N> out;
  for (auto& byte : out)
    byte = static_cast<std::uint8_t>(rng());
  return out;
}

std::uint16_t random16(std::mt19937_64& rng) {
  return static_cast<std::uint16_t>(rng());
}

// A flow whose every field is random: outer VLAN-tagged IPv4/UDP carrying VXLAN with inner
// IPv4/TCP, so each policy sees varying inputs in the fields it reads.
std::vector<FlowKey> random_vxlan_flows(std::mt19937_64& rng) {
  std::vector<FlowKey> keys(kFlows);
  for (FlowKey& key : keys) {
    const auto frame = test::FrameBuilder()
                           .ethernet(random_bytes<6>(rng), random_bytes<6>(rng))
                           .vlan(kEtherTypeVlan, random16(rng))
                           .ipv4(random_bytes<4>(rng), random_bytes<4>(rng))
                           .udp(random16(rng), kUdpPortVxlan)
                           .vxlan(static_cast<std::uint32_t>(rng()) & 0xFFFFFF)
                           .ethernet(random_bytes<6>(rng), random_bytes<6>(rng))
                           .ipv4(random_bytes<4>(rng), random_bytes<4>(rng))
                           .tcp(random16(rng), random16(rng))
                           .build();
    parse_flow_key(ByteSpan(frame), key);
  }
  return keys;
}

std::vector<FlowKey> random_ipv6_flows(std::mt19937_64& rng) {
  std::vector<FlowKey> keys(kFlows);
  for (FlowKey& key : keys) {
    const auto frame = test::FrameBuilder()
                           .ethernet(test::kMacB, test::kMacA)
                           .ipv6(random_bytes<16>(rng), random_bytes<16>(rng))
                           .udp(random16(rng), random16(rng))
                           .build();
    parse_flow_key(ByteSpan(frame), key);
  }
  return keys;
}

double chi_square(const std::vector<std::uint32_t>& buckets) {
  const double expected = static_cast<double>(kFlows) / kBuckets;
  double sum = 0;
  for (std::uint32_t count : buckets)
    sum += (count - expected) * (count - expected) / expected;
  return sum;
}

void expect_uniform(const std::vector<FlowKey>& keys, HashPolicy policy, const char* traffic) {
  const FlowHasher hasher(policy);
  std::vector<std::uint32_t> hashes(keys.size());
  hasher.hash_burst(keys, hashes.data());
  std::vector<std::uint32_t> high(kBuckets), low(kBuckets);
  for (std::uint32_t h : hashes) {
    ++high[hash_bucket(h, kBucketBits)];
    ++low[h & (kBuckets - 1)];
  }
  EXPECT_LT(chi_square(high), kChiSquare99) << to_string(policy) << " high bits, " << traffic;
  EXPECT_LT(chi_square(low), kChiSquare99) << to_string(policy) << " low bits, " << traffic;
}

TEST(FlowHashUniformity, ChiSquareOver256Buckets) {
  std::mt19937_64 rng(20240611);
  const std::vector<FlowKey> vxlan = random_vxlan_flows(rng);
  for (HashPolicy policy : kAllHashPolicies)
    expect_uniform(vxlan, policy, "vxlan");
  const std::vector<FlowKey> ipv6 = random_ipv6_flows(rng);
  for (HashPolicy policy : {HashPolicy::l23, HashPolicy::l34, HashPolicy::encap34,
                            HashPolicy::toeplitz, HashPolicy::toeplitz_sym}) {
    expect_uniform(ipv6, policy, "ipv6/udp");
  }
}

// Flows that differ in one field only (sequential ports, as a load generator makes them) still
// spread: the mixer has no weak low bits.
TEST(FlowHashUniformity, SequentialPortsSpread) {
  std::vector<FlowKey> keys(kFlows);
  for (std::size_t i = 0; i < kFlows; ++i) {
    const auto frame = test::FrameBuilder()
                           .ethernet(test::kMacB, test::kMacA)
                           .ipv4(test::kIpv4A, {10, 0, static_cast<std::uint8_t>(i >> 16), 1})
                           .tcp(static_cast<std::uint16_t>(i), 3260)
                           .build(64);
    parse_flow_key(ByteSpan(frame), keys[i]);
  }
  expect_uniform(keys, HashPolicy::l34, "sequential ports");
}

}  // namespace
}  // namespace braid::flow
