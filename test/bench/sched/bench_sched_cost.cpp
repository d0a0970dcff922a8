// Per-packet cost of the worker's bond fast path, hash -> bucket -> member, without and with the
// scheduler's activity record (what every flowlet policy adds: two stores per packet into the
// worker's own array, one TSC read per burst, here a constant), and the control-side cost of one
// period per policy. The policies differ only on the control side: the per-packet path is the
// same table lookup for all of them.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "bond/bucket_activity.hpp"
#include "sched/scheduler.hpp"

namespace braid {
namespace {

constexpr std::uint32_t kBuckets = 4096;
constexpr unsigned kShift = 20;  // 32 - log2(4096)

std::vector<std::uint32_t> hashes() {
  std::mt19937 random(1);
  std::vector<std::uint32_t> out(1 << 16);
  for (auto& h : out)
    h = random();
  return out;
}

void BM_LookupOnly_hash(benchmark::State& state) {
  const auto h = hashes();
  const std::vector<std::uint32_t> equal(4, 1);
  const auto table = bond::interleaved_assignment(equal, kBuckets);
  std::size_t i = 0;
  for (auto _ : state) {
    for (int k = 0; k < 32; ++k, ++i)
      benchmark::DoNotOptimize(table[h[i & 0xffff] >> kShift]);
  }
  state.SetItemsProcessed(state.iterations() * 32);
}

void BM_LookupAndActivity_flowlet_policies(benchmark::State& state) {
  const auto h = hashes();
  const std::vector<std::uint32_t> equal(4, 1);
  const auto table = bond::interleaved_assignment(equal, kBuckets);
  bond::BucketActivityArray activity(kBuckets);
  std::size_t i = 0;
  std::uint32_t stamp = 1;
  for (auto _ : state) {
    ++stamp;  // per burst
    for (int k = 0; k < 32; ++k, ++i) {
      const std::uint32_t bucket = h[i & 0xffff] >> kShift;
      activity.record(bucket, stamp);
      benchmark::DoNotOptimize(table[bucket]);
    }
  }
  state.SetItemsProcessed(state.iterations() * 32);
}

void BM_ControlPeriod(benchmark::State& state) {
  sched::Settings settings;
  settings.policy = static_cast<sched::PolicyKind>(state.range(0));
  sched::Scheduler scheduler(settings, 4, kBuckets);
  const std::vector<std::uint32_t> equal(4, 1);
  auto table = bond::interleaved_assignment(equal, kBuckets);
  std::vector<sched::BucketActivity> activity(kBuckets);
  std::vector<sched::MemberInput> members(4);
  for (auto& m : members)
    m.distributing = true;
  std::mt19937 random(2);
  std::uint64_t now = 0;
  for (auto _ : state) {
    now += 10'000'000;
    for (std::uint32_t b = 0; b < kBuckets; ++b) {
      activity[b].packets += random() % 64;
      activity[b].last_seen_ns = now - random() % 2'000'000;
    }
    const auto result = scheduler.step(now, members, activity, table);
    if (result.buckets) table = *result.buckets;
  }
  state.SetLabel(std::string(sched::policy_name(settings.policy)));
}

BENCHMARK(BM_LookupOnly_hash);
BENCHMARK(BM_LookupAndActivity_flowlet_policies);
BENCHMARK(BM_ControlPeriod)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace braid

BENCHMARK_MAIN();
