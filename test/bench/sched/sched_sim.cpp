// End-to-end scheduling quality on simulated time: a Zipf trace of many flows is hashed to the
// bond's buckets exactly as a worker does (l34 hash of the real frames, high bits -> bucket),
// each bucket's member is an emulated link (drivers/linkemu: rate, queue, latency, PFC-like
// pauses), and the real scheduler (lib/sched) runs every period on the same inputs it gets in
// braid: bucket activity, queue depths, congestion counters. A held bucket's packets wait in a
// hold of the worker's size and go to its new member first, as a worker does. Simulated time is
// the honest clock here: a 2-core shared CI machine cannot pace 4 x 1 Mpps links in real time.
//
//   sched_sim balance     10,000 flows Zipf(1.1), 4 equal members at 80% load
//   sched_sim congestion  member 3 paused half the time (500 us of every 1 ms), load = what
//                         the links can carry
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <numeric>
#include <string>
#include <vector>

#include "flow/flow_hash.hpp"
#include "linkemu/link_model.hpp"
#include "sched/scheduler.hpp"
#include "trace/frame_builder.hpp"
#include "trace/synthetic_trace.hpp"

namespace braid {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

struct Scenario {
  sched::PolicyKind policy = sched::PolicyKind::kHash;
  std::uint32_t members = 4;
  std::uint32_t buckets = 4096;
  std::uint32_t flows = 10'000;
  double zipf = 1.1;
  double member_pps = 1'000'000;
  double load = 0.8;  // of the capacity available
  std::uint64_t duration_ns = 1000 * kMs;
  std::uint64_t warmup_ns = 200 * kMs;
  int paused_member = -1;
  std::uint64_t pause_every_ns = 1 * kMs;
  std::uint64_t pause_for_ns = 500'000;
  std::uint64_t pause_from_ns = 100 * kMs;
};

struct Result {
  double max_over_mean = 0;
  double delivered_share = 0;
  std::uint64_t reordered = 0;
  std::uint64_t reordered_flows = 0;
  std::uint64_t moves = 0;
  std::uint64_t held_moves = 0;
  std::uint64_t dropped = 0;
  std::uint64_t hold_dropped = 0;
  double settle_ms = -1;
  double delivery_settle_ms = -1;
  std::uint64_t weight_reversals = 0;
  std::vector<std::uint32_t> final_weights;
};

using Link = linkemu::LinkModel<std::uint64_t>;  // tag: flow << 32 | sequence

Result run(const Scenario& s) {
  double available = s.members * s.member_pps;
  if (s.paused_member >= 0)
    available -= s.member_pps * static_cast<double>(s.pause_for_ns) / s.pause_every_ns;
  const double offered_pps = available * s.load;
  const auto packets = static_cast<std::uint32_t>(offered_pps * s.duration_ns / 1e9);
  trace::TraceSpec spec;
  spec.flows = s.flows;
  spec.packets = packets;
  spec.zipf_exponent = s.zipf;
  spec.seed = 7;
  const std::vector<trace::FlowSpec> flows = trace::make_flows(spec);
  const std::vector<std::uint32_t> order = trace::make_packet_flows(spec);
  const flow::FlowHasher hasher(flow::HashPolicy::l34);
  const unsigned bucket_bits = static_cast<unsigned>(__builtin_ctz(s.buckets));
  std::vector<std::uint32_t> bucket_of(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const std::vector<std::uint8_t> frame = trace::build_frame(flows[f], 64);
    bucket_of[f] = flow::hash_bucket(hasher.hash_frame({frame.data(), frame.size()}), bucket_bits);
  }

  std::vector<Link> links;
  for (std::uint32_t m = 0; m < s.members; ++m) {
    linkemu::LinkSettings link;
    link.rate_pps = s.member_pps;
    link.seed = m + 1;
    links.emplace_back(link);
  }
  if (s.paused_member >= 0) {
    for (std::uint64_t t = s.pause_from_ns; t < s.duration_ns + 10 * kMs; t += s.pause_every_ns)
      links[s.paused_member].add_pause(t, t + s.pause_for_ns);
  }
  sched::Settings settings;
  settings.policy = s.policy;
  settings.max_moves = 256;
  sched::Scheduler scheduler(settings, s.members, s.buckets);
  const std::vector<std::uint32_t> equal(s.members, 1);
  std::vector<bond::MemberIndex> table = bond::interleaved_assignment(equal, s.buckets);
  std::vector<sched::BucketActivity> activity(s.buckets);
  std::vector<sched::MemberInput> inputs(s.members);
  std::vector<std::uint32_t> sequence(flows.size(), 0);
  std::vector<std::uint64_t> offered(s.members, 0);
  std::vector<linkemu::Delivery<std::uint64_t>> deliveries;
  deliveries.reserve(packets);
  std::vector<std::vector<std::uint32_t>> weight_trace;
  std::vector<std::uint64_t> period_times;

  // The worker's hold for held buckets (lib/bond/dpdk/bucket_hold.hpp): packets of a bucket the
  // table marks kHeldBucket wait here in order, and leave first on its new member.
  struct Held {
    std::uint32_t bucket;
    std::uint64_t tag;
  };
  std::deque<Held> hold;
  std::uint64_t hold_dropped = 0;
  auto release_held = [&](std::uint64_t now) {
    std::deque<Held> still;
    for (const Held& held : hold) {
      const bond::MemberIndex member = table[held.bucket];
      if (member == bond::kHeldBucket) {
        still.push_back(held);
      } else {
        links[member].offer(now, held.tag);
      }
    }
    hold.swap(still);
  };

  const std::uint64_t end = s.duration_ns;
  const double spacing_ns = 1e9 / offered_pps;
  std::uint64_t next_period = settings.period_ns;
  for (std::uint32_t i = 0; i < packets; ++i) {
    const auto now = static_cast<std::uint64_t>(i * spacing_ns) + 1;
    // Control events due by now, in time order: held buckets whose hold is over, and periods.
    while (true) {
      const std::uint64_t release = scheduler.next_release_ns();
      const bool release_first = release != 0 && release < next_period;
      const std::uint64_t t = release_first ? release : next_period;
      if (t > now) break;
      for (Link& link : links) {
        link.advance(t);
        link.take_deliveries(deliveries);
      }
      for (std::uint32_t m = 0; m < s.members; ++m)
        inputs[m] = {true, links[m].queue_depth(), sched::kCountedNow, links[m].congestion()};
      if (release_first) {
        if (auto released = scheduler.release(t, inputs, activity, table)) {
          table = std::move(*released);
          release_held(t);
        }
        continue;
      }
      const sched::StepResult step = scheduler.step(t, inputs, activity, table);
      if (step.buckets) {
        table = *step.buckets;
        release_held(t);
      }
      if (std::getenv("SCHED_SIM_TRACE") != nullptr) {
        std::printf("t=%llu ms moved %u held %u q", static_cast<unsigned long long>(t / kMs),
                    step.moved, step.held);
        for (std::uint32_t m = 0; m < s.members; ++m)
          std::printf(" %u/%u", links[m].queue_depth(), scheduler.weights()[m]);
        std::printf("\n");
      }
      weight_trace.push_back(scheduler.weights());
      period_times.push_back(t);
      next_period += settings.period_ns;
    }
    const std::uint32_t f = order[i];
    const std::uint32_t b = bucket_of[f];
    activity[b].last_seen_ns = now;
    ++activity[b].packets;
    const bond::MemberIndex member = table[b];
    const std::uint64_t tag = std::uint64_t{f} << 32 | ++sequence[f];
    if (member == bond::kHeldBucket) {
      if (hold.size() < bond::kHeldPacketsPerWorker) {
        hold.push_back({b, tag});
      } else {
        ++hold_dropped;
      }
      continue;
    }
    if (now >= s.warmup_ns) ++offered[member];
    links[member].offer(now, tag);
  }
  for (Link& link : links) {
    link.advance(end + 100 * kMs);
    link.take_deliveries(deliveries);
  }

  Result r;
  const std::uint64_t total = std::accumulate(offered.begin(), offered.end(), std::uint64_t{0});
  r.max_over_mean = static_cast<double>(*std::max_element(offered.begin(), offered.end())) /
                    (static_cast<double>(total) / s.members);
  std::stable_sort(deliveries.begin(), deliveries.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  std::vector<std::uint32_t> last(flows.size(), 0);
  std::vector<bool> flow_reordered(flows.size(), false);
  std::uint64_t delivered_in_window = 0;
  // Delivered per control period, for the time until delivery settles.
  std::vector<std::uint64_t> delivered_per_period(end / settings.period_ns + 1, 0);
  for (const auto& d : deliveries) {
    const auto f = static_cast<std::uint32_t>(d.tag >> 32);
    const auto seq = static_cast<std::uint32_t>(d.tag);
    if (seq < last[f]) {
      ++r.reordered;
      flow_reordered[f] = true;
    }
    last[f] = std::max(last[f], seq);
    if (d.time_ns >= s.warmup_ns && d.time_ns < end) ++delivered_in_window;
    if (d.time_ns < end) ++delivered_per_period[d.time_ns / settings.period_ns];
  }
  r.reordered_flows =
      static_cast<std::uint64_t>(std::count(flow_reordered.begin(), flow_reordered.end(), true));
  const double capacity_in_window = available * static_cast<double>(end - s.warmup_ns) / 1e9;
  r.delivered_share = delivered_in_window / capacity_in_window;
  for (const Link& link : links)
    r.dropped += link.counters().dropped_queue;
  r.hold_dropped = hold_dropped;
  r.moves = scheduler.moves();
  r.held_moves = scheduler.snapshot().held_moves;
  r.final_weights = scheduler.weights();
  // Settled: the first period after which every weight stays within 5% (of a full weight) of
  // where it ends, the usual settling-time band.
  const std::uint32_t band = 50;
  std::size_t settled = 0;
  for (std::size_t p = weight_trace.size(); p-- > 1;) {
    bool same = true;
    for (std::uint32_t m = 0; m < s.members; ++m) {
      const auto diff = static_cast<std::int64_t>(weight_trace[p][m]) - r.final_weights[m];
      if (std::abs(diff) > band) same = false;
    }
    if (!same) {
      settled = p + 1;
      break;
    }
  }
  if (s.paused_member >= 0 && settled < period_times.size()) {
    r.settle_ms =
        settled == 0
            ? 0
            : (static_cast<double>(period_times[settled]) - static_cast<double>(s.pause_from_ns)) /
                  1e6;
  }
  // Delivery settled: from the first pause on, every period after this time delivered at least
  // 90% of the capacity available (the target), or all that was offered.
  if (s.paused_member >= 0) {
    const double wanted =
        std::min(0.9, s.load) * available * static_cast<double>(settings.period_ns) / 1e9;
    const std::size_t first = s.pause_from_ns / settings.period_ns;
    std::size_t last_short = first;
    for (std::size_t p = first; p + 1 < delivered_per_period.size(); ++p) {
      if (static_cast<double>(delivered_per_period[p]) < wanted) last_short = p + 1;
    }
    if (last_short + 1 < delivered_per_period.size()) {
      r.delivery_settle_ms =
          static_cast<double>(last_short * settings.period_ns - s.pause_from_ns) / 1e6;
    }
  }
  // Oscillation: changes of direction of any weight after it settled.
  for (std::uint32_t m = 0; m < s.members; ++m) {
    int direction = 0;
    for (std::size_t p = std::max<std::size_t>(settled, 1); p < weight_trace.size(); ++p) {
      const int d = weight_trace[p][m] > weight_trace[p - 1][m]   ? 1
                    : weight_trace[p][m] < weight_trace[p - 1][m] ? -1
                                                                  : 0;
      if (d != 0 && direction != 0 && d != direction) ++r.weight_reversals;
      if (d != 0) direction = d;
    }
  }
  return r;
}

void print(const char* name, const Result& r, bool congestion) {
  std::printf(
      "%-9s max/mean %.3f  delivered %.1f%% of available  drops %llu (+%llu held)  reordered "
      "%llu (%llu flows)  moves %llu (%llu held)",
      name, r.max_over_mean, r.delivered_share * 100, static_cast<unsigned long long>(r.dropped),
      static_cast<unsigned long long>(r.hold_dropped), static_cast<unsigned long long>(r.reordered),
      static_cast<unsigned long long>(r.reordered_flows), static_cast<unsigned long long>(r.moves),
      static_cast<unsigned long long>(r.held_moves));
  if (congestion) {
    const std::string delivery = r.delivery_settle_ms < 0
                                     ? "never"
                                     : std::to_string(std::lround(r.delivery_settle_ms)) + " ms";
    std::printf("  settle %.0f ms (delivery %s)  reversals %llu  weights", r.settle_ms,
                delivery.c_str(), static_cast<unsigned long long>(r.weight_reversals));
    for (std::uint32_t w : r.final_weights)
      std::printf(" %u", w);
  }
  std::printf("\n");
}

}  // namespace
}  // namespace braid

int main(int argc, char** argv) {
  using namespace braid;
  const std::string which = argc > 1 ? argv[1] : "all";
  const sched::PolicyKind policies[] = {sched::PolicyKind::kHash, sched::PolicyKind::kWrr,
                                        sched::PolicyKind::kLqf, sched::PolicyKind::kAdaptive};
  if (which == "all" || which == "balance") {
    std::printf(
        "balance: 10000 flows Zipf(1.1), 4 members x 1 Mpps, 80%% load, 4096 buckets, "
        "1 s simulated, measured after 200 ms\n");
    for (sched::PolicyKind policy : policies) {
      Scenario s;
      s.policy = policy;
      print(std::string(sched::policy_name(policy)).c_str(), run(s), false);
    }
  }
  if (which == "all" || which == "congestion") {
    std::printf(
        "congestion: one member paused 500 us of every 1 ms from t=100 ms; offered = "
        "95%% of the available capacity (3.325 Mpps); each member paused in turn\n");
    for (sched::PolicyKind policy : policies) {
      for (int paused = 0; paused < 4; ++paused) {
        Scenario s;
        s.policy = policy;
        s.paused_member = paused;
        s.load = 0.95;
        const std::string name =
            std::string(sched::policy_name(policy)) + " p" + std::to_string(paused);
        print(name.c_str(), run(s), true);
      }
    }
  }
  return 0;
}
