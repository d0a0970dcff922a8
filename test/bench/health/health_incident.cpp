// Issue 15's incident replayed on CPU (not a test): a bad optic on one of two links. A braid bond
// of 2 net_ring members, each behind an emulated link (drivers/linkemu) of `link_kpps`, latency
// 20 us, queue 1024 (10 ms: it absorbs the worker being descheduled for a few ms on a shared
// machine), one worker lcore, the harness thread acting as braid's control thread. Member 0's
// carrier goes down for `down_ms` every `period_s` (linkemu/link_flapper.hpp), its link loses 2% of
// what braid sends on it, and 2% of what it receives fails its FCS check (linkemu/rx_errors.hpp:
// the CRC errors braid's health model reads as it reads a NIC's). A copy sent on member 0 that
// reaches the far end while the carrier is down is lost, as on a real link. The far end sends
// kReversePps to member 0 while its carrier is up (the crc signal needs 100,000 frames in its 10 s
// window); what it sends to member 1 would change nothing here.
//
// Traffic: Zipf(1.1) bulk over 1000 flows at `bulk_kpps` (the healthy link alone carries it),
// and two request probes of 64 flows each (about half start on each member). Each flow is a
// synchronous client (a database committing its log writes): a request every 5 ms, or once the
// last one is delivered when that takes longer. A request not delivered within the retransmit
// timeout is sent again on its flow: "RoCE" after a fixed 4.2 ms, "TCP" after 200 ms doubling.
// Its latency runs from its first send to the far end's receipt of any copy.
//
// Variants: the adaptive scheduler with the shipped health defaults; the same with health off
// (no dampening, the crc signal measured but not judged); a plain hash bond with health off.
//
//   scripts/build release && build/test/bench/health/health_incident [seconds, 60]
//       [period_s, 5] [down_ms, 300] [link_kpps, 100] [bulk_kpps, 40]
#include <rte_ethdev.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "bond_rig.hpp"
#include "linkemu/link_flapper.hpp"
#include "linkemu/rx_errors.hpp"
#include "port/slow_protocols.hpp"
#include "trace/synthetic_trace.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint32_t kBulkFlows = 1000;
constexpr std::uint32_t kProbeFlows = 64;  // per probe
constexpr std::uint64_t kRequestIntervalNs = 5 * kMs;
constexpr double kBadLoss = 0.02;
constexpr double kBadCrc = 0.02;
constexpr double kReversePps = 20'000;
constexpr std::uint64_t kTailNs = 5'000 * kMs;  // after the traffic, for outstanding requests
constexpr unsigned kBehindPackets = 1024;       // at the host port: over 15 ms of traffic

struct Settings {
  double seconds = 60;
  double period_s = 5;
  double down_ms = 300;
  double link_pps = 100'000;
  double bulk_pps = 40'000;
};

struct Variant {
  std::string name;
  std::string bond;
};

std::vector<Variant> variants() {
  const std::string adaptive =
      ", mode: static, buckets: 4096, scheduler: {policy: adaptive, congestion: {source: sim}}";
  const std::string health_off =
      ", health: {dampening: {penalty_per_flap: 0}, signals: {crc: {judged: false}}}";
  return {{"adaptive, health on", adaptive},
          {"adaptive, health off", adaptive + health_off},
          {"hash, health off", ", mode: static, buckets: 4096" + health_off}};
}

struct Probe {
  const char* name;
  std::uint32_t first_flow;
  std::uint64_t timeout_ns;
  bool backoff;  // the timeout doubles at each retransmit of a request
};

constexpr std::array<Probe, 2> kProbes{{
    // A RoCE QP's local ACK timeout at timeout = 10: 4.096 us x 2^10, the same for every retry.
    {"RoCE", kBulkFlows, 4'194'304, false},
    // Linux TCP's RTO_min: a lone request gets no duplicate ACKs, so only its retransmission
    // timer recovers it, doubling (RFC 6298 5.5).
    {"TCP", kBulkFlows + kProbeFlows, 200 * kMs, true},
}};

struct ProbeResult {
  std::uint64_t requests = 0, retransmitted = 0, undelivered = 0;
  std::uint64_t packets_sent = 0, packets_delivered = 0;
  std::uint32_t flows_first_on_bad = 0;
  double p50_ms = 0, p99_ms = 0, p999_ms = 0, max_ms = 0;
};

// One probe's requests: sends them and their retransmissions, and times their delivery.
class ProbeTraffic {
 public:
  ProbeTraffic(const Probe& probe, std::uint64_t now_ns)
      : probe_(probe),
        request_of_(kProbeFlows),
        next_ns_(kProbeFlows),
        open_request_(kProbeFlows, kNone),
        first_member_(kProbeFlows, -1) {
    for (std::uint32_t f = 0; f < kProbeFlows; ++f)  // spread over the interval
      next_ns_[f] = now_ns + f * kRequestIntervalNs / kProbeFlows;
  }

  bool owns(std::uint32_t flow) const {
    return flow >= probe_.first_flow && flow < probe_.first_flow + kProbeFlows;
  }
  bool done() const {
    return std::all_of(open_request_.begin(), open_request_.end(),
                       [](std::uint32_t id) { return id == kNone; });
  }

  // Retransmits what timed out and, with `new_requests`, sends the requests due.
  void send(BondRig& rig, std::uint64_t now_ns, bool new_requests) {
    while (!timers_.empty() && timers_.top().first <= now_ns) {
      Request& request = requests_[timers_.top().second];
      const std::uint32_t id = timers_.top().second;
      timers_.pop();
      if (request.delivered) continue;
      if (!request.retransmitted) ++result_.retransmitted;
      request.retransmitted = true;
      if (probe_.backoff) request.timeout_ns *= 2;
      send_copy(rig, id, now_ns);
    }
    if (!new_requests) return;
    for (std::uint32_t f = 0; f < kProbeFlows; ++f) {
      if (open_request_[f] != kNone || now_ns < next_ns_[f]) continue;
      next_ns_[f] = now_ns + kRequestIntervalNs;
      open_request_[f] = static_cast<std::uint32_t>(requests_.size());
      requests_.push_back({probe_.first_flow + f, now_ns, probe_.timeout_ns});
      send_copy(rig, open_request_[f], now_ns);
    }
  }

  // A copy reached the far end (stamp.time: when) on `member`.
  void arrived(const Stamp& stamp, int member) {
    const std::uint32_t f = stamp.flow - probe_.first_flow;
    if (first_member_[f] < 0) first_member_[f] = member;
    if (stamp.sequence >= request_of_[f].size()) return;
    Request& request = requests_[request_of_[f][stamp.sequence]];
    ++result_.packets_delivered;
    if (request.delivered) return;  // a late original after its retransmission
    request.delivered = true;
    if (open_request_[f] == request_of_[f][stamp.sequence]) open_request_[f] = kNone;
    latencies_ns_.push_back(stamp.time > request.first_ns ? stamp.time - request.first_ns : 0);
  }

  ProbeResult result() {
    std::sort(latencies_ns_.begin(), latencies_ns_.end());
    ProbeResult r = result_;
    r.requests = requests_.size();
    r.undelivered = static_cast<std::uint64_t>(std::count_if(
        open_request_.begin(), open_request_.end(), [](std::uint32_t id) { return id != kNone; }));
    r.flows_first_on_bad =
        static_cast<std::uint32_t>(std::count(first_member_.begin(), first_member_.end(), 0));
    const auto at = [&](double q) {
      return static_cast<double>(sorted_quantile(latencies_ns_, q)) / 1e6;
    };
    r.p50_ms = at(0.5);
    r.p99_ms = at(0.99);
    r.p999_ms = at(0.999);
    r.max_ms = at(1.0);
    return r;
  }

 private:
  struct Request {
    std::uint32_t flow;
    std::uint64_t first_ns;
    std::uint64_t timeout_ns;
    bool delivered = false;
    bool retransmitted = false;
  };
  using Timer = std::pair<std::uint64_t, std::uint32_t>;  // deadline, request
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // A copy of request `id` on its flow; one the host ring refused is lost like any other.
  void send_copy(BondRig& rig, std::uint32_t id, std::uint64_t now_ns) {
    const Request& request = requests_[id];
    timers_.push({now_ns + request.timeout_ns, id});
    const std::uint32_t sequence = rig.inject(request.flow);
    if (sequence == 0) return;
    std::vector<std::uint32_t>& of = request_of_[request.flow - probe_.first_flow];
    if (of.size() <= sequence) of.resize(sequence + 1);
    of[sequence] = id;
    ++result_.packets_sent;
  }

  Probe probe_;
  std::vector<Request> requests_;
  std::vector<std::vector<std::uint32_t>> request_of_;  // by flow, by sequence number
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::vector<std::uint64_t> latencies_ns_;
  std::vector<std::uint64_t> next_ns_;       // by flow: its next request, once the last is in
  std::vector<std::uint32_t> open_request_;  // by flow: the request waiting for delivery
  std::vector<int> first_member_;
  ProbeResult result_;
};

struct Result {
  double bulk_offered_pps = 0;
  double bulk_delivered = 0;
  std::array<ProbeResult, kProbes.size()> probes;
  std::array<double, 4> state_s{};  // member 0, by health::State
  std::uint32_t carrier_flaps = 0;
  std::uint64_t health_flaps = 0;
  std::uint64_t wire_lost = 0, carrier_lost = 0, queue_drops = 0;
  std::string braid_drops;
  // The machine's noise: time the worker was behind (more than kBehindPackets waiting for it at
  // the host port: it was descheduled, and will burst them onto the links), the stalls braid
  // alarmed on (its poll loop still for 100 ms), the longest, and the longest pause between two
  // turns of the harness's loop.
  double behind_s = 0;
  std::uint64_t worker_stalls = 0;
  double longest_stall_ms = 0, longest_pause_ms = 0;
};

Result run(const Variant& variant, const Settings& settings) {
  linkemu::LinkSettings link;
  link.rate_pps = settings.link_pps;
  link.queue_packets = 1024;
  link.latency_ns = 20'000;
  BondRig rig(2, variant.bond, kBulkFlows + kProbes.size() * kProbeFlows, link);
  link.loss = kBadLoss;
  link.seed = 15;
  rig.set_link(0, link);
  // The injector's RX callbacks go after the worker stopped and before the rig closes the port
  // (health_test.cpp says why).
  auto injector = std::make_unique<linkemu::RxErrorInjector>(rig.member(0).port_id(), kBadCrc);
  struct StopFirst {
    BondRig& rig;
    std::unique_ptr<linkemu::RxErrorInjector>& injector;
    ~StopFirst() {
      rig.engine().stop();
      injector.reset();
    }
  } stop_first{rig, injector};
  trace::TraceSpec spec;
  spec.flows = kBulkFlows;
  spec.packets = 1 << 20;
  spec.zipf_exponent = 1.1;
  spec.seed = 7;
  rig.inject_in_order(trace::make_packet_flows(spec));
  rig.engine().start();

  const std::uint64_t start = monotonic_ns();
  const std::uint64_t end = start + static_cast<std::uint64_t>(settings.seconds * 1e9);
  const auto period_ns = static_cast<std::uint64_t>(settings.period_s * 1e9);
  const linkemu::FlapPattern pattern{
      .period_ns = period_ns,
      .down_ns = static_cast<std::uint64_t>(settings.down_ms * 1e6),
      .count = static_cast<std::uint32_t>((end - start - 1) / period_ns)};
  const std::uint64_t flaps_from = start + period_ns;
  linkemu::LinkFlapper flapper(rig.member(0).port_id(), pattern, flaps_from);
  Result r;
  rig.intercept([&](const rte_mbuf* frame, std::size_t member) {
    const auto arrived = linkemu::RingLink::arrival_ns(frame);
    if (member != 0 || !arrived || pattern.carrier_up(flaps_from, *arrived)) return false;
    if (!drivers::is_lldp(frame) && !drivers::is_slow_protocols(frame)) ++r.carrier_lost;
    return true;
  });
  std::vector<ProbeTraffic> probes;
  for (const Probe& probe : kProbes)
    probes.emplace_back(probe, start);
  std::uint64_t bulk_received = 0;
  rig.observe([&](const Stamp& stamp, int member) {
    if (stamp.flow < kBulkFlows) ++bulk_received;
    for (ProbeTraffic& probe : probes)
      if (probe.owns(stamp.flow)) probe.arrived(stamp, member);
  });

  FlowSet far_end(256);
  std::uint32_t far_flow = 0;
  Pacer reverse(kReversePps, start);
  Pacer bulk(settings.bulk_pps, start);
  std::uint64_t bulk_injected = 0;
  std::uint64_t sampled_ns = start;
  std::uint64_t last = start;
  for (std::uint64_t now = start;; last = now, now = monotonic_ns()) {
    r.longest_pause_ms = std::max(r.longest_pause_ms, static_cast<double>(now - last) / 1e6);
    const bool traffic = now < end;
    const bool probes_done =
        std::all_of(probes.begin(), probes.end(), [](const ProbeTraffic& p) { return p.done(); });
    if (!traffic && (probes_done || now >= end + kTailNs)) break;
    flapper.poll(now);
    const std::uint32_t taken = rig.pump(traffic ? bulk.due(now) : 0);
    bulk.spent(taken);
    bulk_injected += taken;
    for (ProbeTraffic& probe : probes)
      probe.send(rig, now, traffic);
    // From the far end on member 0, what its CRC signal judges; a NIC without carrier
    // receives nothing.
    const std::uint32_t due = traffic ? reverse.due(now) : 0;
    reverse.spent(due);
    if (flapper.carrier_up()) {
      rte_mbuf* burst[64];
      unsigned made = 0;
      while (made < due && (burst[made] = far_end.make(test_mempool(), far_flow)) != nullptr) {
        far_flow = (far_flow + 1) % far_end.size();
        ++made;
      }
      const unsigned queued = rte_ring_enqueue_burst(
          rig.member(0).to_port(), reinterpret_cast<void**>(burst), made, nullptr);
      rte_pktmbuf_free_bulk(burst + queued, made - queued);
    }
    rig.host().drain([](const rte_mbuf*) {});
    if (traffic && now - sampled_ns >= kMs) {
      const health::State state = rig.bond().members()[0].health;
      r.state_s[static_cast<std::size_t>(state)] += static_cast<double>(now - sampled_ns) / 1e9;
      if (rte_ring_count(rig.host().to_port()) > kBehindPackets)
        r.behind_s += static_cast<double>(now - sampled_ns) / 1e9;
      sampled_ns = now;
    }
  }
  const engine::WorkerLiveness::Worker& worker = rig.engine().liveness().workers().at(0);
  r.worker_stalls = worker.stalls;
  r.longest_stall_ms = static_cast<double>(worker.longest_stall_ns) / 1e6;
  rig.settle();
  r.bulk_offered_pps = static_cast<double>(bulk_injected) / settings.seconds;
  r.bulk_delivered = static_cast<double>(bulk_received) / static_cast<double>(bulk_injected);
  for (std::size_t p = 0; p < probes.size(); ++p)
    r.probes[p] = probes[p].result();
  r.carrier_flaps = flapper.flaps();
  r.health_flaps = rig.bond().health_view(0, monotonic_ns()).flaps;
  r.wire_lost = rig.link(0).stats().lost;
  for (std::size_t m = 0; m < 2; ++m)
    r.queue_drops += rig.link(m).stats().dropped_queue + rig.link(m).stats().peer_full;
  const datapath::CounterTotals totals = rig.engine().totals();
  for (std::size_t reason = 0; reason < datapath::kDropReasonCount; ++reason) {
    if (totals.drops[reason] == 0) continue;
    r.braid_drops += (r.braid_drops.empty() ? "" : ", ") +
                     std::string(datapath::kDropReasonNames[reason]) + " " +
                     std::to_string(totals.drops[reason]);
  }
  if (r.braid_drops.empty()) r.braid_drops = "0";
  return r;
}

void print(const std::vector<Variant>& all, const std::vector<Result>& results) {
  std::printf("\n| bond | bulk offered kpps | bulk delivered |");
  for (const Probe& probe : kProbes)
    std::printf(
        " %s copies delivered | %s requests retransmitted | %s p50 / p99 / p99.9 / max ms |",
        probe.name, probe.name, probe.name);
  std::printf("\n|---|---:|---:|---:|---:|---|---:|---:|---|\n");
  for (std::size_t v = 0; v < results.size(); ++v) {
    const Result& r = results[v];
    std::printf("| %s | %.1f | %.2f%%", all[v].name.c_str(), r.bulk_offered_pps / 1e3,
                r.bulk_delivered * 100);
    for (const ProbeResult& p : r.probes) {
      std::printf(
          " | %.2f%% | %.2f%% | %.3f / %.3f / %.3f / %.1f",
          100.0 * static_cast<double>(p.packets_delivered) / static_cast<double>(p.packets_sent),
          100.0 * static_cast<double>(p.retransmitted) / static_cast<double>(p.requests), p.p50_ms,
          p.p99_ms, p.p999_ms, p.max_ms);
    }
    std::printf(" |\n");
  }
  std::printf(
      "\n| bond | member 0 healthy / degraded / down / suppressed s | carrier flaps / counted by "
      "braid | m0 lost on the wire | m0 sent while down | link queue drops | braid drops | "
      "probe flows first on m0 | requests never delivered | noise: worker behind s, stalls "
      "(longest ms), harness's longest pause ms |\n"
      "|---|---|---|---:|---:|---:|---|---|---|---|\n");
  for (std::size_t v = 0; v < results.size(); ++v) {
    const Result& r = results[v];
    std::printf(
        "| %s | %.1f / %.1f / %.1f / %.1f | %u / %llu | %llu | %llu | %llu | %s | %u / %u | %llu "
        "/ %llu | %.1f, %llu (%.0f), %.0f |\n",
        all[v].name.c_str(), r.state_s[0], r.state_s[1], r.state_s[2], r.state_s[3],
        r.carrier_flaps, static_cast<unsigned long long>(r.health_flaps),
        static_cast<unsigned long long>(r.wire_lost),
        static_cast<unsigned long long>(r.carrier_lost),
        static_cast<unsigned long long>(r.queue_drops), r.braid_drops.c_str(),
        r.probes[0].flows_first_on_bad, r.probes[1].flows_first_on_bad,
        static_cast<unsigned long long>(r.probes[0].undelivered),
        static_cast<unsigned long long>(r.probes[1].undelivered), r.behind_s,
        static_cast<unsigned long long>(r.worker_stalls), r.longest_stall_ms, r.longest_pause_ms);
  }
}

}  // namespace
}  // namespace braid::test

int main(int argc, char** argv) {
  using namespace braid::test;
  Settings s;
  if (argc > 1) s.seconds = std::atof(argv[1]);
  if (argc > 2) s.period_s = std::atof(argv[2]);
  if (argc > 3) s.down_ms = std::atof(argv[3]);
  if (argc > 4) s.link_pps = std::atof(argv[4]) * 1e3;
  if (argc > 5) s.bulk_pps = std::atof(argv[5]) * 1e3;
  if (s.seconds <= s.period_s || s.down_ms >= s.period_s * 1e3) {
    std::fprintf(stderr, "health_incident: seconds must exceed period_s, down_ms be under it\n");
    return 2;
  }
  EalEnvironment eal;
  eal.SetUp();
  std::printf(
      "2 members x %.0f kpps (queue 1024, latency 20 us); member 0 down %.0f ms every %.1f s from "
      "%.1f s, 2%% loss and 2%% CRC errors; Zipf(1.1) bulk over %u flows at %.0f kpps, %u+%u "
      "probe flows with a request every %llu ms, %.0f kpps from the far end on member 0; %.0f "
      "s per bond\n",
      s.link_pps / 1e3, s.down_ms, s.period_s, s.period_s, kBulkFlows, s.bulk_pps / 1e3,
      kProbeFlows, kProbeFlows, static_cast<unsigned long long>(kRequestIntervalNs / kMs),
      kReversePps / 1e3, s.seconds);
  std::fflush(stdout);
  const std::vector<Variant> all = variants();
  std::vector<Result> results;
  for (const Variant& variant : all) {
    results.push_back(run(variant, s));
    std::fprintf(stderr, "health_incident: %s done\n", variant.name.c_str());
  }
  print(all, results);
  eal.TearDown();
  return 0;
}
