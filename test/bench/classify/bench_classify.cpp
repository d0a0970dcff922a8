// ns/packet of the traffic classifier (lib/classify) on realistic mixes, next to the flow parser
// in the same run. Rules: doc/classes.md's storage gateway (5 rules, 3 classes) and a worst case
// of 64 rules over port ranges and QPs, where every frame walks every table. Traffic:
//   storage: 45% RoCEv2 on PCP 3 (VLAN), 30% NVMe/TCP and iSCSI, 15% bulk TCP/UDP, 5% IPv6,
//            5% VXLAN (the parser path)
//   untagged_tcp: IPv4/TCP to random ports, no rule matches (the default class)
//   vxlan: every frame tunnelled, inner rules (the parser path throughout)
// Results: doc/benchmarks.md, "Traffic classes".
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "classify/classifier.hpp"
#include "classify/classify_burst.hpp"
#include "flow/flow_hash.hpp"
#include "flow/l34_burst.hpp"
#include "flow/l34_fast_path_x4.hpp"
#include "flow/l34_fields.hpp"
#include "flow/parser.hpp"
#include "frame_builder.hpp"

namespace braid::classify {
namespace {

using flow::test::FrameBuilder;
using Frame = std::vector<std::uint8_t>;

constexpr std::size_t kFramesPerSet =
    1024;  // cycled through (as in bench_flow_hash); distinct flows
constexpr std::size_t kMinFrameBytes = 64;

Rule make_rule(ClassId id) {
  Rule rule;
  rule.class_id = id;
  return rule;
}

// doc/classes.md's example: replication (RoCE on PCP 3, or inner RoCE), frontend (NVMe/TCP,
// iSCSI, DSCP AF41/EF), bulk (the default).
ClassifierSpec storage_spec() {
  ClassifierSpec spec;
  spec.classes = {{"replication"}, {"frontend"}, {"bulk"}};
  spec.default_class = 2;
  Rule roce = make_rule(0);
  roce.pcp = {{3, 3}};
  roce.roce = true;
  Rule nvme = make_rule(1);
  nvme.protocol = {{6, 6}};
  nvme.dst_port = {{4420, 4420}, {3260, 3260}};
  Rule dscp = make_rule(1);
  dscp.dscp = {{34, 34}, {46, 46}};
  Rule inner_roce = make_rule(0);
  inner_roce.header = HeaderLevel::inner;
  inner_roce.roce = true;
  Rule inner_nvme = make_rule(1);
  inner_nvme.header = HeaderLevel::inner;
  inner_nvme.dst_port = {{4420, 4420}};
  spec.rules = {roce, nvme, dscp, inner_roce, inner_nvme};
  return spec;
}

// 64 outer rules, none of which matches the traffic, each on a port range and a QP range: the
// classifier ANDs every table and searches every interval list.
ClassifierSpec worst_spec() {
  ClassifierSpec spec;
  spec.classes = {{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}};
  spec.default_class = 7;
  for (std::uint32_t i = 0; i < kMaxRules; ++i) {
    Rule rule = make_rule(static_cast<ClassId>(i % 7));
    if (i % 2 == 0) {
      rule.dst_port = {{1 + i * 3, 2 + i * 3}};
      rule.src_port = {{10 + i, 10 + i}};
    } else {
      rule.roce_dest_qp = {{i * 1000, i * 1000 + 9}};
    }
    spec.rules.push_back(rule);
  }
  return spec;
}

enum class Mix { storage, untagged_tcp, vxlan };

Frame make_frame(Mix mix, std::mt19937_64& rng) {
  const auto port = [&rng] { return static_cast<std::uint16_t>(1024 + rng() % 60000); };
  const auto v4 = [&rng] {
    return flow::test::Ipv4{10, static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()),
                            static_cast<std::uint8_t>(rng())};
  };
  FrameBuilder builder;
  builder.ethernet(flow::test::kMacB, flow::test::kMacA);
  const unsigned pick = static_cast<unsigned>(rng() % 100);
  if (mix == Mix::untagged_tcp) {
    builder.ipv4(v4(), v4()).tcp(port(), port());
  } else if (mix == Mix::vxlan || pick >= 95) {
    builder.ipv4(v4(), v4()).udp(port(), flow::kUdpPortVxlan).vxlan(7);
    builder.ethernet(flow::test::kMacA, flow::test::kMacB).ipv4(v4(), v4());
    if (rng() % 2 == 0) {
      builder.udp(port(), flow::kUdpPortRocev2).bth(static_cast<std::uint32_t>(rng()));
    } else {
      builder.tcp(port(), 4420);
    }
  } else if (pick < 45) {
    builder.vlan(flow::kEtherTypeVlan, 3 << 13 | 100)
        .ipv4(v4(), v4())
        .traffic_class(26 << 2 | 2)
        .udp(port(), flow::kUdpPortRocev2)
        .bth(static_cast<std::uint32_t>(rng()), 0, 0x0A);
  } else if (pick < 75) {
    builder.vlan(flow::kEtherTypeVlan, 4 << 13 | 200)
        .ipv4(v4(), v4())
        .tcp(port(), rng() % 2 == 0 ? 4420 : 3260);
  } else if (pick < 90) {
    builder.ipv4(v4(), v4());
    if (rng() % 2 == 0) {
      builder.tcp(port(), port());
    } else {
      builder.udp(port(), port());
    }
  } else {
    flow::test::Ipv6 src = flow::test::kIpv6A;
    src[15] = static_cast<std::uint8_t>(rng());
    builder.ipv6(src, flow::test::kIpv6B).traffic_class(46 << 2).tcp(port(), port());
  }
  return builder.build(kMinFrameBytes);
}

struct TrafficSet {
  std::vector<Frame> frames;
  std::vector<ByteSpan> spans;
  std::vector<flow::FlowKey> keys;
  std::vector<FrameFields> fields;
};

const TrafficSet& traffic(Mix mix) {
  static TrafficSet sets[3];
  TrafficSet& set = sets[static_cast<int>(mix)];
  if (!set.frames.empty()) return set;
  std::mt19937_64 rng(16 + static_cast<unsigned>(mix));
  for (std::size_t i = 0; i < kFramesPerSet; ++i)
    set.frames.push_back(make_frame(mix, rng));
  for (const Frame& frame : set.frames) {
    set.spans.emplace_back(frame);
    set.keys.push_back(flow::parse_flow_key(set.spans.back()));
    set.fields.emplace_back();
    fields_from_key(set.keys.back(), set.fields.back());
  }
  return set;
}

void count_packets(benchmark::State& state) {
  const auto packets = static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
  state.counters["time/pkt"] =
      benchmark::Counter(packets, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Classifies the set's `inputs` one per iteration: frames (the fast path, or the parser for the
// shapes it leaves: VXLAN here), keys the hash path parsed already, or fields extracted
// beforehand (the tables alone).
template <typename Input>
void BM_Classify(benchmark::State& state, std::vector<Input> TrafficSet::*inputs, Mix mix,
                 bool worst) {
  const std::vector<Input>& set = traffic(mix).*inputs;
  const Classifier classifier(worst ? worst_spec() : storage_spec());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(classifier.classify(set[i]));
    i = (i + 1) % kFramesPerSet;
  }
  count_packets(state);
}

void BM_ClassifyFrame(benchmark::State& state, Mix mix, bool worst) {
  BM_Classify(state, &TrafficSet::spans, mix, worst);
}
void BM_ClassifyKey(benchmark::State& state, Mix mix, bool worst) {
  BM_Classify(state, &TrafficSet::keys, mix, worst);
}
void BM_ClassifyFields(benchmark::State& state, Mix mix, bool worst) {
  BM_Classify(state, &TrafficSet::fields, mix, worst);
}

// The reference in the same run: the flow parser alone on the same frames.
void BM_ParseFlowKey(benchmark::State& state, Mix mix) {
  const TrafficSet& set = traffic(mix);
  flow::FlowKey key;
  std::size_t i = 0;
  for (auto _ : state) {
    flow::parse_flow_key(set.spans[i], key);
    benchmark::DoNotOptimize(key);
    i = (i + 1) % kFramesPerSet;
  }
  count_packets(state);
}

// Four frames at a time through the four-lane l34 path (the parser for the lanes it declines),
// then each frame's class: none (the hash alone, the reference), from the frame (its own parse),
// or from the fields the hash path reads (flow/l34_fields.hpp; the frame for the rest). Kept to
// compare the field sources; BM_HashBurst above times the workers' own pass.
enum class Then { none, classify_frame, classify_hash_fields };

void BM_HashThen(benchmark::State& state, Mix mix, Then then) {
  const TrafficSet& set = traffic(mix);
  const Classifier classifier(storage_spec());
  const flow::FlowHasher hasher(flow::HashPolicy::l34);
  std::array<std::uint32_t, flow::kL34Lanes> hashes{};
  std::size_t i = 0;
  for (auto _ : state) {
    const std::array<ByteSpan, flow::kL34Lanes> frames = {set.spans[i], set.spans[i + 1],
                                                          set.spans[i + 2], set.spans[i + 3]};
    const unsigned took = flow::try_hash_l34_x4(frames, hashes.data());
    for (unsigned lane = 0; lane < flow::kL34Lanes; ++lane) {
      const bool fast = (took >> lane & 1) != 0;
      if (!fast) hashes[lane] = hasher.hash_frame(frames[lane]);
      ClassId class_id = 0;
      if (then == Then::classify_frame) {
        class_id = classifier.classify(frames[lane]);
      } else if (then == Then::classify_hash_fields) {
        class_id = fast ? classifier.classify(flow::l34_fields(frames[lane]), frames[lane])
                        : classifier.classify(frames[lane]);
      }
      benchmark::DoNotOptimize(class_id);
    }
    benchmark::DoNotOptimize(hashes);
    i = (i + flow::kL34Lanes) % kFramesPerSet;
  }
  const auto packets = static_cast<double>(state.iterations() * flow::kL34Lanes);
  state.SetItemsProcessed(state.iterations() * flow::kL34Lanes);
  state.counters["time/pkt"] =
      benchmark::Counter(packets, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The workers' own pass over a burst of 32 frames, as bond_datapath.hpp runs it: the l34 hash
// pass (flow/l34_burst.hpp) alone, the reference, or classifying each group of frames as it goes
// (classify/classify_burst.hpp), then counting the classes. What classifying adds to a packet in
// the data path is the difference between the two in the same run.
constexpr std::uint16_t kBurst = 32;

void BM_HashBurst(benchmark::State& state, Mix mix, bool classify) {
  const TrafficSet& set = traffic(mix);
  const Classifier classifier(storage_spec());
  const flow::FlowHasher hasher(flow::HashPolicy::l34);
  std::array<std::uint32_t, kBurst> hashes{};
  std::array<ClassId, kBurst> classes{};
  BurstClassifier burst_classifier(classifier, classes.data());
  const flow::LaneVisitor visitor = classify ? burst_classifier.visitor() : flow::LaneVisitor{};
  ClassCounts counts{};
  // A count the compiler cannot see, as the workers' is (a constant one had GCC warn of the
  // partial group's copy it would never run).
  std::uint16_t burst = kBurst;
  benchmark::DoNotOptimize(burst);
  std::size_t first = 0;
  for (auto _ : state) {
    flow::hash_l34_frames(
        hasher, burst, [&set, first](std::size_t i) { return set.spans[first + i]; },
        [&set, first](std::size_t i) { __builtin_prefetch(set.spans[first + i].data()); },
        hashes.data(), visitor);
    if (classify) count_classes(classes.data(), burst, classifier.spec().classes.size(), counts);
    benchmark::DoNotOptimize(hashes);
    benchmark::DoNotOptimize(classes);
    first = (first + kBurst) % kFramesPerSet;
  }
  benchmark::DoNotOptimize(counts);
  const auto packets = static_cast<double>(state.iterations() * kBurst);
  state.SetItemsProcessed(state.iterations() * kBurst);
  state.counters["time/pkt"] =
      benchmark::Counter(packets, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_HashBurst, storage_hash_alone, Mix::storage, false);
BENCHMARK_CAPTURE(BM_HashBurst, storage_hash_and_classify, Mix::storage, true);
BENCHMARK_CAPTURE(BM_HashBurst, untagged_tcp_hash_alone, Mix::untagged_tcp, false);
BENCHMARK_CAPTURE(BM_HashBurst, untagged_tcp_hash_and_classify, Mix::untagged_tcp, true);
BENCHMARK_CAPTURE(BM_HashBurst, vxlan_hash_alone, Mix::vxlan, false);
BENCHMARK_CAPTURE(BM_HashBurst, vxlan_hash_and_classify, Mix::vxlan, true);
BENCHMARK_CAPTURE(BM_HashThen, storage_hash_alone, Mix::storage, Then::none);
BENCHMARK_CAPTURE(BM_HashThen, storage_classify_frame, Mix::storage, Then::classify_frame);
BENCHMARK_CAPTURE(BM_HashThen, storage_classify_hash_fields, Mix::storage,
                  Then::classify_hash_fields);
BENCHMARK_CAPTURE(BM_HashThen, untagged_tcp_hash_alone, Mix::untagged_tcp, Then::none);
BENCHMARK_CAPTURE(BM_HashThen, untagged_tcp_classify_frame, Mix::untagged_tcp,
                  Then::classify_frame);
BENCHMARK_CAPTURE(BM_HashThen, untagged_tcp_classify_hash_fields, Mix::untagged_tcp,
                  Then::classify_hash_fields);
BENCHMARK_CAPTURE(BM_ClassifyFrame, storage, Mix::storage, false);
BENCHMARK_CAPTURE(BM_ClassifyFrame, storage_64_rules, Mix::storage, true);
BENCHMARK_CAPTURE(BM_ClassifyFrame, untagged_tcp, Mix::untagged_tcp, false);
BENCHMARK_CAPTURE(BM_ClassifyFrame, untagged_tcp_64_rules, Mix::untagged_tcp, true);
BENCHMARK_CAPTURE(BM_ClassifyFrame, vxlan, Mix::vxlan, false);
BENCHMARK_CAPTURE(BM_ClassifyKey, storage, Mix::storage, false);
BENCHMARK_CAPTURE(BM_ClassifyKey, storage_64_rules, Mix::storage, true);
BENCHMARK_CAPTURE(BM_ClassifyFields, storage, Mix::storage, false);
BENCHMARK_CAPTURE(BM_ClassifyFields, storage_64_rules, Mix::storage, true);
BENCHMARK_CAPTURE(BM_ParseFlowKey, storage, Mix::storage);
BENCHMARK_CAPTURE(BM_ParseFlowKey, untagged_tcp, Mix::untagged_tcp);
BENCHMARK_CAPTURE(BM_ParseFlowKey, vxlan, Mix::vxlan);

}  // namespace
}  // namespace braid::classify

BENCHMARK_MAIN();
