// ns/packet of every transmit-hash policy (parse + hash, batched 32 at a time) on 64-byte
// IPv4/TCP, IPv6/UDP, VLAN and VXLAN frames, next to DPDK's rte_softrss and rte_hash_crc over
// the same RSS tuples in the same run, and the l34 mbuf adapter on a storage VLAN's mix. Results:
// doc/benchmarks.md, "Flow hashing" and "Bond per core on mixed traffic".
#include <benchmark/benchmark.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "flow/dpdk/mbuf_hash.hpp"
#include "flow/flow_hash.hpp"
#include "flow/parser.hpp"
#include "frame_builder.hpp"

namespace braid::flow {
namespace {

constexpr std::size_t kFramesPerSet = 1024;  // distinct flows, cycled through
constexpr std::size_t kMinFrameBytes = 64;

enum class Traffic { ipv4_tcp, ipv6_udp, vlan, vxlan, mixed };
// The kinds every policy and the DPDK references run on (one tuple size per set).
constexpr Traffic kAllTraffic[] = {Traffic::ipv4_tcp, Traffic::ipv6_udp, Traffic::vlan,
                                   Traffic::vxlan};
constexpr std::size_t kTrafficKinds = 5;

// The storage VLAN of test/bench/mixed_traces.py, frame by frame: 25% IPv6 and 23% 802.1Q
// drawn independently, TCP and UDP mixed, service ports with RoCEv2 (and its BTH) among them.
constexpr double kMixedIpv6Share = 0.25;
constexpr double kMixedVlanShare = 0.23;
constexpr std::array<std::uint16_t, 6> kServicePorts = {3260, 4420, 2049, kUdpPortRocev2, 443, 80};

const char* traffic_name(Traffic traffic) {
  switch (traffic) {
    case Traffic::ipv4_tcp:
      return "ipv4_tcp";
    case Traffic::ipv6_udp:
      return "ipv6_udp";
    case Traffic::vlan:
      return "vlan_ipv4_udp";
    case Traffic::vxlan:
      return "vxlan_ipv4_tcp";
    case Traffic::mixed:
      return "mixed";
  }
  return "?";
}

template <std::size_t N>
std::array<std::uint8_t, N> random_bytes(std::mt19937_64& rng) {
  std::array<std::uint8_t, N> out;
  for (auto& byte : out)
    byte = static_cast<std::uint8_t>(rng());
  return out;
}

std::vector<std::uint8_t> make_mixed_frame(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> share(0.0, 1.0);
  const auto src_port = static_cast<std::uint16_t>(32768 + rng() % 28000);
  const std::uint16_t dst_port = kServicePorts[rng() % kServicePorts.size()];
  const bool tcp = rng() % 2 == 0;
  test::FrameBuilder builder;
  builder.ethernet(test::kMacB, test::kMacA);
  if (share(rng) < kMixedVlanShare) builder.vlan(kEtherTypeVlan, 100);
  if (share(rng) < kMixedIpv6Share) {
    builder.ipv6(random_bytes<16>(rng), random_bytes<16>(rng));
  } else {
    builder.ipv4(random_bytes<4>(rng), random_bytes<4>(rng));
  }
  if (tcp) {
    builder.tcp(src_port, dst_port);
  } else {
    builder.udp(src_port, dst_port);
    if (dst_port == kUdpPortRocev2) builder.bth(static_cast<std::uint32_t>(rng()) & 0xFFFFFF);
  }
  return builder.build(kMinFrameBytes);
}

std::vector<std::uint8_t> make_frame(Traffic traffic, std::mt19937_64& rng) {
  if (traffic == Traffic::mixed) return make_mixed_frame(rng);
  const auto port = [&rng] { return static_cast<std::uint16_t>(rng()); };
  test::FrameBuilder builder;
  builder.ethernet(test::kMacB, test::kMacA);
  switch (traffic) {
    case Traffic::ipv4_tcp:
      builder.ipv4(random_bytes<4>(rng), random_bytes<4>(rng)).tcp(port(), port());
      break;
    case Traffic::ipv6_udp:
      builder.ipv6(random_bytes<16>(rng), random_bytes<16>(rng)).udp(port(), port());
      break;
    case Traffic::vlan:
      builder.vlan(kEtherTypeVlan, 100)
          .ipv4(random_bytes<4>(rng), random_bytes<4>(rng))
          .udp(port(), port());
      break;
    case Traffic::vxlan:
      // A 64-byte inner frame in VXLAN: 114 bytes on the wire.
      builder.ipv4(random_bytes<4>(rng), random_bytes<4>(rng))
          .udp(port(), kUdpPortVxlan)
          .vxlan(static_cast<std::uint32_t>(rng()) & 0xFFFFFF)
          .ethernet(test::kMacA, test::kMacB)
          .ipv4(random_bytes<4>(rng), random_bytes<4>(rng))
          .tcp(port(), port())
          .payload(6);
      break;
    case Traffic::mixed:
      break;
  }
  return builder.build(kMinFrameBytes);
}

struct TrafficSet {
  std::vector<std::vector<std::uint8_t>> frames;
  std::vector<ByteSpan> spans;
  std::vector<FlowKey> keys;
  // Host-order words for rte_softrss, whose tuple parameter is not const.
  mutable std::vector<std::array<std::uint32_t, 9>> rss_words;
  std::vector<RssTuple> tuples;  // network order, for rte_hash_crc
  std::uint32_t rss_word_count = 0;
  // Single-segment mbufs over `frames`, for the adapter's burst path.
  std::vector<std::unique_ptr<rte_mbuf>> mbuf_storage;
  std::vector<rte_mbuf*> mbufs;
};

const TrafficSet& traffic_set(Traffic traffic) {
  static std::array<std::unique_ptr<TrafficSet>, kTrafficKinds> sets;
  auto& set = sets[static_cast<std::size_t>(traffic)];
  if (set) return *set;
  set = std::make_unique<TrafficSet>();
  std::mt19937_64 rng(42 + static_cast<unsigned>(traffic));
  for (std::size_t i = 0; i < kFramesPerSet; ++i)
    set->frames.push_back(make_frame(traffic, rng));
  for (auto& frame : set->frames) {
    set->spans.emplace_back(frame);
    set->keys.push_back(parse_flow_key(set->spans.back()));
    const RssTuple tuple = make_rss_tuple(set->keys.back(), false);
    set->tuples.push_back(tuple);
    std::array<std::uint32_t, 9> words{};
    for (std::size_t w = 0; w < tuple.size / 4; ++w)
      words[w] = load_be32(tuple.span(), w * 4);
    set->rss_words.push_back(words);
    set->rss_word_count = static_cast<std::uint32_t>(tuple.size / 4);
    auto mbuf = std::make_unique<rte_mbuf>();
    mbuf->buf_addr = frame.data();
    mbuf->data_len = static_cast<std::uint16_t>(frame.size());
    mbuf->pkt_len = static_cast<std::uint32_t>(frame.size());
    mbuf->nb_segs = 1;
    set->mbufs.push_back(mbuf.get());
    set->mbuf_storage.push_back(std::move(mbuf));
  }
  return *set;
}

void set_packet_counters(benchmark::State& state, std::size_t packets_per_iteration) {
  const auto packets = static_cast<double>(state.iterations() * packets_per_iteration);
  state.SetItemsProcessed(static_cast<std::int64_t>(packets));
  state.counters["time/pkt"] =
      benchmark::Counter(packets, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Parse + hash, kHashBurstSize frames per call (FlowHasher::hash_frame_burst).
void BM_ParseHashBurst(benchmark::State& state, HashPolicy policy, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  const FlowHasher hasher(policy);
  std::array<std::uint32_t, kHashBurstSize> hashes{};
  std::size_t start = 0;
  for (auto _ : state) {
    hasher.hash_frame_burst(std::span(set.spans).subspan(start, kHashBurstSize), hashes.data());
    benchmark::DoNotOptimize(hashes);
    start = (start + kHashBurstSize) % kFramesPerSet;
  }
  set_packet_counters(state, kHashBurstSize);
}

// The adapter the bond calls: mbuf burst → hashes (nic-rss here has no NIC hash: it parses).
void BM_MbufHashBurst(benchmark::State& state, HashPolicy policy, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  const FlowHasher hasher(policy);
  std::array<std::uint32_t, kHashBurstSize> hashes{};
  std::size_t start = 0;
  for (auto _ : state) {
    dpdk::mbuf_hash_burst(hasher, set.mbufs.data() + start, kHashBurstSize, hashes.data());
    benchmark::DoNotOptimize(hashes);
    start = (start + kHashBurstSize) % kFramesPerSet;
  }
  set_packet_counters(state, kHashBurstSize);
}

// Parse + hash one frame per call.
void BM_ParseHashPerPacket(benchmark::State& state, HashPolicy policy, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  const FlowHasher hasher(policy);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hasher.hash_frame(set.spans[i]));
    i = (i + 1) % kFramesPerSet;
  }
  set_packet_counters(state, 1);
}

// Hash only, over keys parsed beforehand.
void BM_HashKeysBurst(benchmark::State& state, HashPolicy policy, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  const FlowHasher hasher(policy);
  std::array<std::uint32_t, kHashBurstSize> hashes{};
  std::size_t start = 0;
  for (auto _ : state) {
    hasher.hash_burst(std::span(set.keys).subspan(start, kHashBurstSize), hashes.data());
    benchmark::DoNotOptimize(hashes);
    start = (start + kHashBurstSize) % kFramesPerSet;
  }
  set_packet_counters(state, kHashBurstSize);
}

// DPDK references over the outer RSS tuples extracted beforehand (no parsing in the loop).
void BM_RteSoftrss(benchmark::State& state, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        rte_softrss(set.rss_words[i].data(), set.rss_word_count, kMicrosoftRssKey.data()));
    i = (i + 1) % kFramesPerSet;
  }
  set_packet_counters(state, 1);
}

void BM_RteHashCrc(benchmark::State& state, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  std::size_t i = 0;
  for (auto _ : state) {
    const RssTuple& tuple = set.tuples[i];
    benchmark::DoNotOptimize(
        rte_hash_crc(tuple.bytes.data(), static_cast<std::uint32_t>(tuple.size), 0xFFFFFFFF));
    i = (i + 1) % kFramesPerSet;
  }
  set_packet_counters(state, 1);
}

// braid's table Toeplitz over the same tuples, for a like-for-like line next to rte_softrss.
void BM_ToeplitzTable(benchmark::State& state, Traffic traffic) {
  const TrafficSet& set = traffic_set(traffic);
  const Toeplitz toeplitz(kMicrosoftRssKey);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(toeplitz.hash(set.tuples[i].span()));
    i = (i + 1) % kFramesPerSet;
  }
  set_packet_counters(state, 1);
}

int register_all() {
  for (Traffic traffic : kAllTraffic) {
    const std::string suffix = std::string("/") + traffic_name(traffic);
    for (HashPolicy policy : kAllHashPolicies) {
      const std::string name(to_string(policy));
      benchmark::RegisterBenchmark(("parse_hash_burst/" + name + suffix).c_str(), BM_ParseHashBurst,
                                   policy, traffic);
    }
    benchmark::RegisterBenchmark(("mbuf_hash_burst/l34" + suffix).c_str(), BM_MbufHashBurst,
                                 HashPolicy::l34, traffic);
    benchmark::RegisterBenchmark(("parse_hash_per_packet/l34" + suffix).c_str(),
                                 BM_ParseHashPerPacket, HashPolicy::l34, traffic);
    benchmark::RegisterBenchmark(("hash_keys_burst/l34" + suffix).c_str(), BM_HashKeysBurst,
                                 HashPolicy::l34, traffic);
    benchmark::RegisterBenchmark(("hash_keys_burst/toeplitz" + suffix).c_str(), BM_HashKeysBurst,
                                 HashPolicy::toeplitz, traffic);
    benchmark::RegisterBenchmark(("toeplitz_table" + suffix).c_str(), BM_ToeplitzTable, traffic);
    benchmark::RegisterBenchmark(("rte_softrss" + suffix).c_str(), BM_RteSoftrss, traffic);
    benchmark::RegisterBenchmark(("rte_hash_crc" + suffix).c_str(), BM_RteHashCrc, traffic);
  }
  // Mixed tuple sizes: the adapter only (rte_softrss takes one tuple size per set).
  benchmark::RegisterBenchmark("mbuf_hash_burst/l34/mixed", BM_MbufHashBurst, HashPolicy::l34,
                               Traffic::mixed);
  return 0;
}

}  // namespace
}  // namespace braid::flow

int main(int argc, char** argv) {
  braid::flow::register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
