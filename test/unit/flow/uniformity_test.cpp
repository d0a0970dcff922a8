// 100k random flows into 256 buckets per policy: the chi-square statistic must stay under the
// 99% quantile for 255 degrees of freedom. Fixed seed, so the test is deterministic. And the l34
// fast paths' IPv4 and IPv6 hashes over a bond's 4096 buckets, for flows that differ in one
// field only.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>

#include "flow/flow_hash.hpp"
#include "flow/l34_fast_path.hpp"
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

// A bond's table: 4096 buckets, 10,000 flows (2.4 per bucket). chi-square 0.99 quantile for 4095
// degrees of freedom (Wilson-Hilferty); the fullest bucket of a uniform spread holds about 4x
// the mean, 6x has a chance below 1e-4.
constexpr std::size_t kTableFlows = 10'000;
constexpr unsigned kTableBucketBits = 12;
constexpr std::size_t kTableBuckets = std::size_t{1} << kTableBucketBits;
constexpr double kTableChiSquare99 = 4308.5;
constexpr double kTableMaxOverMean = 6.0;

// The fast path's hashes (equal to the parser's) of `frames` spread over the table, in the
// high bits the bond indexes it by (hash_bucket) and in the low bits.
void expect_table_uniform(const std::vector<std::vector<std::uint8_t>>& frames,
                          const char* traffic) {
  const FlowHasher l34(HashPolicy::l34);
  std::vector<std::uint32_t> high(kTableBuckets), low(kTableBuckets);
  for (const auto& frame : frames) {
    std::uint32_t hash = 0;
    ASSERT_TRUE(try_hash_l34(frame, hash)) << traffic;
    ASSERT_EQ(hash, l34.hash_frame(frame)) << traffic;
    ++high[hash_bucket(hash, kTableBucketBits)];
    ++low[hash & (kTableBuckets - 1)];
  }
  const double mean = static_cast<double>(frames.size()) / kTableBuckets;
  for (const auto* buckets : {&high, &low}) {
    const char* bits = buckets == &high ? "high bits" : "low bits";
    double chi_square = 0;
    for (std::uint32_t count : *buckets)
      chi_square += (count - mean) * (count - mean) / mean;
    EXPECT_LT(chi_square, kTableChiSquare99) << traffic << ", " << bits;
    EXPECT_LT(*std::max_element(buckets->begin(), buckets->end()), kTableMaxOverMean * mean)
        << traffic << ", " << bits;
  }
}

// Address `base` with `value` in its last two bytes (the low bits of a prefix's host part).
template <typename Address>
Address with_low_bits(Address base, std::size_t value) {
  base[base.size() - 2] = static_cast<std::uint8_t>(value >> 8);
  base[base.size() - 1] = static_cast<std::uint8_t>(value);
  return base;
}

enum class Varies { source_port, source_address, destination_address };

// Flow `i` of 10,000 that differ in `varies` only: TCP from port 32768 + i, or from (to) the
// address with i in its last two bytes.
std::vector<std::uint8_t> one_field_flow(bool ipv6, Varies varies, std::size_t i) {
  const std::uint16_t source_port =
      static_cast<std::uint16_t>(varies == Varies::source_port ? 32768 + i : 40000);
  const bool source = varies == Varies::source_address;
  const bool destination = varies == Varies::destination_address;
  test::FrameBuilder builder;
  builder.ethernet(test::kMacB, test::kMacA);
  if (ipv6) {
    builder.ipv6(source ? with_low_bits(test::kIpv6A, i) : test::kIpv6A,
                 destination ? with_low_bits(test::kIpv6B, i) : test::kIpv6B);
  } else {
    builder.ipv4(source ? with_low_bits(test::kIpv4A, i) : test::kIpv4A,
                 destination ? with_low_bits(test::kIpv4B, i) : test::kIpv4B);
  }
  return builder.tcp(source_port, 4420).build(64);
}

TEST(FlowHashUniformity, FlowsDifferingInOneFieldSpreadOverABondsTable) {
  const std::pair<Varies, const char*> fields[] = {
      {Varies::source_port, "sequential source ports"},
      {Varies::source_address, "sequential source addresses"},
      {Varies::destination_address, "sequential destination addresses"}};
  for (const bool ipv6 : {false, true}) {
    for (const auto& [varies, name] : fields) {
      std::vector<std::vector<std::uint8_t>> frames;
      for (std::size_t i = 0; i < kTableFlows; ++i)
        frames.push_back(one_field_flow(ipv6, varies, i));
      expect_table_uniform(frames, (std::string(ipv6 ? "IPv6, " : "IPv4, ") + name).c_str());
    }
  }
}

}  // namespace
}  // namespace braid::flow
