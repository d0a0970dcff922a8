// A bond under test: a host ring port cross-connected to a bond of ring-port members, traffic
// of many flows injected on the host side and taken from each member's TX ring, with the test
// thread acting as braid's control thread (it calls Engine::poll_control).
//
// With `links`, each member's TX ring feeds an emulated link (drivers/linkemu: rate, queue,
// latency, loss, PFC-like pauses) whose far end is a ring this rig reads: braid then sees the
// links' queue depths and congestion counters as it would a NIC's, and reordering is judged by
// arrival time at the far end, which is what a partner sees.
//
// With `workers` above 1, workers on lcores 1..workers (EAL must have them: the multi-worker
// tests map them onto shared CPUs with --lcores) and that many RX queues on the host port; the
// rig plays RSS, putting flow f on host queue f % workers, so every worker carries a share of
// the flows and each flow stays on one worker.
#pragma once

#include <rte_ethdev.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "linkemu/ring_link.hpp"
#include "port/slow_protocols.hpp"
#include "traffic.hpp"

namespace braid::test {

// A harness that was descheduled catches up at most this much of its traffic, so it does not hit
// the links with a burst no sender would make.
inline constexpr std::uint64_t kCatchUpNs = 2'000'000;

// The q-quantile (0..1) of `sorted`, 0 when empty.
inline std::uint64_t sorted_quantile(const std::vector<std::uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto i = static_cast<std::size_t>(q * static_cast<double>(sorted.size()));
  return sorted[std::min(sorted.size() - 1, i)];
}

// Packets due at `pps` on the clock, at most kCatchUpNs' worth (and one) at a time.
class Pacer {
 public:
  Pacer(double pps, std::uint64_t now_ns) : pps_(pps), last_ns_(now_ns) {}
  std::uint32_t due(std::uint64_t now_ns) {
    const double most = std::max(1.0, pps_ * static_cast<double>(kCatchUpNs) / 1e9);
    credit_ = std::min(credit_ + pps_ * static_cast<double>(now_ns - last_ns_) / 1e9, most);
    last_ns_ = now_ns;
    return static_cast<std::uint32_t>(std::min(credit_, 64.0));
  }
  void spent(std::uint32_t packets) { credit_ -= packets; }

 private:
  double pps_;
  std::uint64_t last_ns_;
  double credit_ = 0;
};

class BondRig {
 public:
  // `worker_settings`: more keys of the config's workers map (", tx_drain_us: 100000").
  BondRig(std::size_t members, const std::string& bond_settings, std::uint32_t flows = 4096,
          std::optional<linkemu::LinkSettings> links = std::nullopt, unsigned workers = 1,
          const std::string& worker_settings = "")
      : host_(unique_name("host"), std::max(2u, workers), kHostRing, workers),
        flows_(flows),
        tracker_(flows),
        received_(members, 0),
        lldp_frames_(members, 0) {
    for (std::size_t m = 0; m < members; ++m) {
      // Twice the host's rings: all they hold may leave on one member (active-backup) while
      // this thread, the members' only reader, is descheduled; the member's ring must take it
      // all, or the workers count tx_full drops the test did not cause. A TX queue per worker,
      // and the control thread's.
      members_.push_back(std::make_unique<RingPort>(unique_name("member"), workers + 1,
                                                    2 * kHostRing * std::bit_ceil(workers)));
    }
    std::string yaml = "ports:\n  - {name: host, device: \"" + host_.name() + "\"" +
                       (workers > 1 ? ", rx_queues: " + std::to_string(workers) : "") + "}\n";
    std::string names;
    for (std::size_t m = 0; m < members; ++m) {
      yaml += "  - {name: m" + std::to_string(m) + ", device: \"" + members_[m]->name() + "\"}\n";
      names += (m ? ", m" : "m") + std::to_string(m);
    }
    yaml += "bonds:\n  - {name: up, members: [" + names + "]" + bond_settings + "}\n";
    std::string lcores;
    for (unsigned w = 1; w <= workers; ++w)
      lcores += (w > 1 ? ", " : "") + std::to_string(w);
    yaml +=
        "cross_connect: [[host, up]]\nworkers: {lcores: [" + lcores + "]" + worker_settings + "}\n";
    engine_ = std::make_unique<engine::Engine>(config::parse_config(yaml, "bond-rig"));
    if (links) {
      for (std::size_t m = 0; m < members; ++m) {
        rte_ring* far_end = rte_ring_create(unique_name("far").c_str(), kFarEndRing, 0,
                                            RING_F_SP_ENQ | RING_F_SC_DEQ);
        if (far_end == nullptr) throw std::runtime_error("cannot create a far-end ring");
        far_ends_.push_back(far_end);
        links_.push_back(std::make_unique<linkemu::RingLink>(
            members_[m]->port_id(), members_[m]->from_port(), far_end, *links));
      }
    }
  }

  ~BondRig() {
    engine_->stop();  // no worker may be inside a link's TX callback any more
    links_.clear();
    for (rte_ring* ring : far_ends_) {
      rte_mbuf* leftover = nullptr;
      while (rte_ring_dequeue(ring, reinterpret_cast<void**>(&leftover)) == 0)
        rte_pktmbuf_free(leftover);
      rte_ring_free(ring);
    }
  }
  BondRig(const BondRig&) = delete;
  BondRig& operator=(const BondRig&) = delete;

  engine::Engine& engine() { return *engine_; }
  bond::Bond& bond() { return engine_->bond(0); }
  RingPort& member(std::size_t m) { return *members_[m]; }
  FlowSet& flows() { return flows_; }
  // Of the packets injected (round robin over the flows from flow 0), those of flows
  // [first, last): flow f got injected / flows, one more while f is below the remainder.
  std::uint64_t injected_into(std::uint32_t first, std::uint32_t last) const {
    const std::uint32_t flows = flows_.size();
    std::uint64_t total = 0;
    for (std::uint32_t f = first; f < last && f < flows; ++f)
      total += injected_ / flows + (f < injected_ % flows ? 1 : 0);
    return total;
  }
  // How many of class `class_id`'s buckets its table gives `member`.
  std::ptrdiff_t buckets_on(std::size_t class_id, bond::MemberIndex member) {
    const std::span<const bond::MemberIndex> buckets = bond().assignment(class_id);
    return std::count(buckets.begin(), buckets.end(), member);
  }
  // The time of the bond's first event after `since_ns` whose text holds `text`; 0: none.
  std::uint64_t first_event_after(std::uint64_t since_ns, std::string_view text) {
    for (const bond::BondEvent& event : bond().events()) {
      if (event.time_ns > since_ns && event.text.find(text) != std::string::npos)
        return event.time_ns;
    }
    return 0;
  }
  RingPort& host() { return host_; }
  FlowTracker& tracker() { return tracker_; }
  std::uint64_t received(std::size_t m) const { return received_[m]; }
  std::uint64_t injected() const { return injected_; }

  // Injects up to `count` packets (round robin over the flows), takes what the members sent,
  // and runs the control thread's work. Returns packets injected.
  std::uint32_t pump(std::uint32_t count = 64) {
    // Take what the members sent before injecting more: this thread is also the receiver, and
    // if it was descheduled, packets sent under an old table must be read before packets of a
    // flow its scheduler moved meanwhile (otherwise the harness itself would reorder them).
    drain_members();
    // By host RX queue (flow % queues), in flow order within each.
    const std::size_t queues = host_.rx_queues();
    std::vector<std::array<rte_mbuf*, 64>> burst(queues);
    std::vector<unsigned> made(queues, 0);
    for (std::uint32_t i = 0; i < count && i < 64; ++i) {
      const std::uint32_t flow = order_.empty() ? next_flow_ : order_[next_flow_];
      rte_mbuf* packet = flows_.make(test_mempool(), flow);
      if (packet == nullptr) break;
      burst[flow % queues][made[flow % queues]++] = packet;
      next_flow_ = (next_flow_ + 1) % (order_.empty() ? flows_.size() : order_.size());
    }
    unsigned queued = 0;
    for (std::size_t q = 0; q < queues; ++q) {
      const unsigned taken = rte_ring_enqueue_burst(
          host_.to_port(q), reinterpret_cast<void**>(burst[q].data()), made[q], nullptr);
      // What a ring refuses is freed and not counted as injected.
      rte_pktmbuf_free_bulk(burst[q].data() + taken, made[q] - taken);
      queued += taken;
    }
    injected_ += queued;
    drain_members();
    engine_->poll_control(monotonic_ns());
    return queued;
  }

  // Injects one packet of `flow` now, outside pump()'s order (a benchmark's latency probe), on
  // the host queue pump() would use; drain and control work stay pump()'s. Returns the packet's
  // sequence number (its Stamp), or 0 when the pool or the host ring had no room.
  std::uint32_t inject(std::uint32_t flow) {
    rte_mbuf* packet = flows_.make(test_mempool(), flow);
    if (packet == nullptr) return 0;
    const std::uint32_t sequence = FlowSet::stamp_of(packet).sequence;
    if (rte_ring_enqueue(host_.to_port(flow % host_.rx_queues()), packet) != 0) {
      rte_pktmbuf_free(packet);
      return 0;
    }
    ++injected_;
    return sequence;
  }

  void drain_members() {
    for (std::size_t m = 0; m < members_.size(); ++m) {
      rte_ring* from = members_[m]->from_port();
      if (!links_.empty()) {
        links_[m]->poll();
        from = far_ends_[m];
      }
      drain_ring(from, [&](const rte_mbuf* frame) {
        if (interceptor_ && interceptor_(frame, m)) return;
        if (drivers::is_slow_protocols(frame)) {
          ++slow_frames_;
          return;
        }
        if (drivers::is_lldp(frame)) {  // braid's own LLDPDUs (lldp on by default)
          ++lldp_frames_[m];
          return;
        }
        Stamp stamp = FlowSet::stamp_of(frame);
        if (const auto arrived = linkemu::RingLink::arrival_ns(frame)) stamp.time = *arrived;
        tracker_.seen(stamp, static_cast<int>(m));
        if (observer_) observer_(stamp, static_cast<int>(m));
        ++received_[m];
      });
    }
  }

  // Pumps `packets` through and keeps draining until the engine has forwarded all of them.
  void send(std::uint64_t packets) {
    const std::uint64_t target = injected_ + packets;
    while (injected_ < target)
      pump(static_cast<std::uint32_t>(std::min<std::uint64_t>(64, target - injected_)));
    settle();
  }

  // Injects at `pps` on the clock for `duration_ns`, as pump() does (paced: Pacer).
  void run_at_rate(double pps, std::uint64_t duration_ns) {
    const std::uint64_t start = monotonic_ns();
    Pacer pacer(pps, start);
    for (std::uint64_t now = start; now - start < duration_ns; now = monotonic_ns())
      pacer.spent(pump(pacer.due(now)));
  }

  // Runs control work and drains until every injected packet is accounted for.
  void settle() {
    const std::uint64_t deadline = monotonic_ns() + 30'000'000'000ull;
    while (monotonic_ns() < deadline) {
      drain_members();
      engine_->poll_control(monotonic_ns());
      const datapath::CounterTotals totals = engine_->totals();
      // Everything received has left (sent, dropped or handed to control): nothing in flight,
      // in braid or on a link.
      if (totals.rx_packets[host_.port_id()] == injected_ &&
          totals.rx() == totals.tx() + totals.dropped() + totals.to_control &&
          links_in_flight() == 0) {
        break;
      }
    }
    for (int i = 0; i < 100; ++i)
      drain_members();
  }

  // Emulated links (constructed with `links`).
  linkemu::RingLink& link(std::size_t m) { return *links_.at(m); }
  // Gives member m's emulated link `settings` of its own (a lossy one among good ones); before
  // engine().start(), since a link's TX callback must not change under a worker.
  void set_link(std::size_t m, const linkemu::LinkSettings& settings) {
    links_.at(m).reset();
    links_[m] = std::make_unique<linkemu::RingLink>(
        members_[m]->port_id(), members_[m]->from_port(), far_ends_[m], settings);
  }
  // Packets the links took from the members and did not deliver, by any reason.
  std::uint64_t link_drops() const {
    std::uint64_t drops = 0;
    for (const auto& link : links_) {
      const linkemu::RingLinkStats stats = link->stats();
      drops += stats.dropped_queue + stats.lost + stats.peer_full;
    }
    return drops;
  }
  // After engine().stop(): the LLDP shutdowns stop sends (control frames, after the data) leave
  // the emulated links too, so that nothing stays in flight.
  void drain_links() {
    const std::uint64_t deadline = monotonic_ns() + 5'000'000'000ull;
    while (links_in_flight() != 0 && monotonic_ns() < deadline)
      drain_members();
  }
  std::uint64_t links_in_flight() const {
    std::uint64_t held = 0;
    for (const auto& link : links_)
      held += link->in_flight();
    return held;
  }
  std::uint64_t received_total() const {
    std::uint64_t total = 0;
    for (const std::uint64_t received : received_)
      total += received;
    return total;
  }
  // After drain_links(): every packet injected arrived, or braid or a link counted it.
  bool all_accounted() const {
    return links_in_flight() == 0 &&
           injected_ == received_total() + engine_->totals().dropped() + link_drops();
  }

  void run_control_for(std::uint64_t ns) {
    const std::uint64_t until = monotonic_ns() + ns;
    while (monotonic_ns() < until)
      pump(0);
  }

  std::uint64_t slow_frames() const { return slow_frames_; }
  std::uint64_t lldp_frames(std::size_t m) const { return lldp_frames_[m]; }
  // Flows in this order, cycled (e.g. trace::make_packet_flows for skewed traffic), instead of
  // round robin.
  void inject_in_order(std::vector<std::uint32_t> order) {
    order_ = std::move(order);
    next_flow_ = 0;
  }
  // Called for every data packet taken from a member (benchmarks time events with it).
  void observe(std::function<void(const Stamp&, int member)> observer) {
    observer_ = std::move(observer);
  }
  // Shown every frame a member sent before anything else; true: the frame was the far end's
  // (a protocol peer played by the test), not traffic.
  void intercept(std::function<bool(const rte_mbuf*, std::size_t member)> interceptor) {
    interceptor_ = std::move(interceptor);
  }

 private:
  static constexpr unsigned kHostRing = 4096;
  static constexpr unsigned kFarEndRing = 4096;

  RingPort host_;
  std::vector<std::unique_ptr<RingPort>> members_;
  FlowSet flows_;
  FlowTracker tracker_;
  std::unique_ptr<engine::Engine> engine_;
  std::vector<rte_ring*> far_ends_;
  std::vector<std::unique_ptr<linkemu::RingLink>> links_;
  std::vector<std::uint64_t> received_;
  std::vector<std::uint64_t> lldp_frames_;
  std::uint64_t injected_ = 0;
  std::uint64_t slow_frames_ = 0;
  std::uint32_t next_flow_ = 0;
  std::vector<std::uint32_t> order_;
  std::function<void(const Stamp&, int)> observer_;
  std::function<bool(const rte_mbuf*, std::size_t)> interceptor_;
};

}  // namespace braid::test
