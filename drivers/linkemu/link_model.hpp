// An emulated member link, pure and on injected time: packets offered to it wait in a bounded
// queue, leave at the link's rate unless the link is paused (PFC-like: the peer said stop), may
// be lost, and arrive after a fixed latency. It counts what a NIC would (sent, queue drops,
// losses, pause frames and time paused), which the `sim` congestion source reads, and exposes
// its queue depth for least-queue-first. Used by the scheduler benchmarks and, through
// link_emulator.hpp and ring_link.hpp, between a bond member's ring port and its partner.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "sched/congestion.hpp"

namespace braid::linkemu {

struct LinkSettings {
  double rate_pps = 1'000'000;  // service rate while not paused
  std::uint32_t queue_packets = 1024;
  std::uint64_t latency_ns = 10'000;
  double loss = 0.0;  // probability a sent packet never arrives
  std::uint64_t seed = 1;
  // One queue per PFC priority, each queue_packets deep, as a NIC with a TX queue per traffic
  // class: a pause holds only the queues of the priorities it names, the others keep sending.
  // Off: one queue, which a pause on any priority holds as a whole (a member's TX queue in braid).
  bool queue_per_priority = false;
};

// The PFC priorities a pause window stops, bit p for priority p: a PFC frame (IEEE 802.1Qbb)
// names its priorities in its class-enable vector; an 802.3x pause stops the whole link.
using PriorityMask = std::uint8_t;
inline constexpr PriorityMask kLinkLevelPause = 0xFF;
constexpr PriorityMask pfc_priority(std::size_t priority) {
  return static_cast<PriorityMask>(1u << priority);
}

using PerPriority = std::array<std::uint64_t, sched::kPfcPriorities>;

struct LinkCounters {
  std::uint64_t offered = 0;
  std::uint64_t sent = 0;
  std::uint64_t dropped_queue = 0;  // the queue was full: a discard
  std::uint64_t lost = 0;
  std::uint64_t pause_frames = 0;       // pause windows that began, any priority
  std::uint64_t pause_ns = 0;           // time spent paused, any priority
  PerPriority priority_pause_frames{};  // the windows that paused priority p
  PerPriority priority_pause_ns{};
  PerPriority priority_sent{};  // packets sent by their priority (the offer's), either way
};

// What a NIC's counters would say about a link with these counters, in the scheduler's terms:
// pause frames and time paused per priority (mlx5e's ethtool rx_prioN_pause and
// rx_prioN_pause_duration; the pause fields: any priority), discards (the queue was full) and
// packets sent, in all and per priority (tx_prioN_packets).
inline sched::CongestionCounters congestion_of(const LinkCounters& counters) {
  sched::CongestionCounters c;
  c.present = sched::CongestionCounters::kPauseFrames |
              sched::CongestionCounters::kPauseDurationUs | sched::CongestionCounters::kDiscards |
              sched::CongestionCounters::kTxPackets;
  c.pause_frames = counters.pause_frames;
  c.pause_duration_us = counters.pause_ns / 1000;
  for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
    c.set_priority_pause_frames(p, counters.priority_pause_frames[p]);
    c.set_priority_pause_duration_us(p, counters.priority_pause_ns[p] / 1000);
    c.set_priority_tx_packets(p, counters.priority_sent[p]);
  }
  c.discards = counters.dropped_queue;
  c.tx_packets = counters.sent;
  return c;
}

template <typename Tag>
struct Delivery {
  std::uint64_t time_ns;
  Tag tag;
};

template <typename Tag>
class LinkModel {
 public:
  explicit LinkModel(const LinkSettings& settings)
      : settings_(settings),
        service_ns_(1e9 / settings.rate_pps),
        random_(settings.seed),
        coin_(0.0, 1.0) {}

  // A packet of PFC priority `priority` (below kPfcPriorities) arrives at `now_ns` (times must
  // not go backwards). False: dropped (its queue full).
  bool offer(std::uint64_t now_ns, const Tag& tag, std::uint8_t priority = 0) {
    advance(now_ns);
    ++counters_.offered;
    std::deque<Queued>& queue = queues_[settings_.queue_per_priority ? priority : 0];
    if (queue.size() >= settings_.queue_packets) {
      ++counters_.dropped_queue;
      return false;
    }
    queue.push_back({now_ns, tag, priority});
    ++queued_;
    return true;
  }

  // The peer pauses this link over [start_ns, end_ns), on `priorities`. Windows are added in time
  // order. With one queue (as a member's TX queue in braid) a pause on any priority holds it all;
  // with a queue per priority, only those it names. The counters tell the priorities apart.
  void add_pause(std::uint64_t start_ns, std::uint64_t end_ns,
                 PriorityMask priorities = kLinkLevelPause) {
    pauses_.push_back({start_ns, end_ns, priorities, false});
  }

  // Moves the arrivals so far (in time order) to `out`.
  void take_deliveries(std::vector<Delivery<Tag>>& out) {
    out.insert(out.end(), delivered_.begin(), delivered_.end());
    delivered_.clear();
  }
  // Moves the packets the link lost so far to `out` (their owner frees them).
  void take_lost(std::vector<Tag>& out) {
    out.insert(out.end(), lost_.begin(), lost_.end());
    lost_.clear();
  }

  // Transmits what the link could send up to `now_ns`; arrivals wait in take_deliveries().
  void advance(std::uint64_t now_ns) {
    account_pauses(now_ns);
    while (queued_ != 0) {
      // The queue whose head can start first (the earlier arrival on a tie) sends next.
      std::size_t next = 0;
      double start = 0;
      bool found = false;
      for (std::size_t q = 0; q < queues_.size(); ++q) {
        if (queues_[q].empty()) continue;
        double at = std::max(free_at_ns_, static_cast<double>(queues_[q].front().arrival_ns));
        at = static_cast<double>(unpaused_at(static_cast<std::uint64_t>(at), holding(q)));
        if (!found || at < start ||
            (at == start && queues_[q].front().arrival_ns < queues_[next].front().arrival_ns)) {
          next = q;
          start = at;
          found = true;
        }
      }
      const double done = start + service_ns_;
      if (done > static_cast<double>(now_ns)) break;
      free_at_ns_ = done;
      const Tag tag = queues_[next].front().tag;
      ++counters_.priority_sent[queues_[next].front().priority];
      queues_[next].pop_front();
      --queued_;
      ++counters_.sent;
      if (settings_.loss > 0 && coin_(random_) < settings_.loss) {
        ++counters_.lost;
        lost_.push_back(tag);
        continue;
      }
      delivered_.push_back({static_cast<std::uint64_t>(done) + settings_.latency_ns, tag});
    }
  }

  // Empties the queue into `out` without sending anything (the link is being torn down).
  void take_queued(std::vector<Tag>& out) {
    for (std::deque<Queued>& queue : queues_) {
      for (const Queued& queued : queue)
        out.push_back(queued.tag);
      queue.clear();
    }
    queued_ = 0;
  }

  std::uint32_t queue_depth() const { return static_cast<std::uint32_t>(queued_); }
  // Pause windows still looked at on every call (the rest are done with).
  std::size_t pauses_pending() const { return pauses_.size() - first_pause_; }
  const LinkCounters& counters() const { return counters_; }
  const LinkSettings& settings() const { return settings_; }

  // What a NIC's xstats would say, in the scheduler's terms (the `sim` source reads this).
  sched::CongestionCounters congestion() const { return congestion_of(counters_); }

 private:
  struct Queued {
    std::uint64_t arrival_ns;
    Tag tag;
    std::uint8_t priority;
  };
  static constexpr std::size_t kPassedPausesKept = 1024;

  struct Pause {
    std::uint64_t start_ns;
    std::uint64_t end_ns;
    PriorityMask priorities;
    bool counted;
  };

  // The pauses that hold queue q: with one queue, a pause on any priority.
  PriorityMask holding(std::size_t q) const {
    return settings_.queue_per_priority ? pfc_priority(q) : kLinkLevelPause;
  }

  // The earliest time at or after `t` when no pause on `priorities` holds the link.
  std::uint64_t unpaused_at(std::uint64_t t, PriorityMask priorities) const {
    for (std::size_t i = first_pause_; i < pauses_.size() && pauses_[i].start_ns <= t; ++i) {
      if ((pauses_[i].priorities & priorities) != 0 && t < pauses_[i].end_ns) t = pauses_[i].end_ns;
    }
    return t;
  }

  void account_pauses(std::uint64_t now_ns) {
    for (std::size_t i = first_pause_; i < pauses_.size() && pauses_[i].start_ns < now_ns; ++i) {
      Pause& pause = pauses_[i];
      const bool first = !pause.counted;
      if (first) {
        ++counters_.pause_frames;
        pause.counted = true;
      }
      const std::uint64_t from = std::max(pause.start_ns, accounted_ns_);
      const std::uint64_t to = std::min(pause.end_ns, now_ns);
      const std::uint64_t paused_ns = to > from ? to - from : 0;
      counters_.pause_ns += paused_ns;
      for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
        if (((pause.priorities >> p) & 1u) == 0) continue;
        counters_.priority_pause_frames[p] += first ? 1 : 0;
        counters_.priority_pause_ns[p] += paused_ns;
      }
    }
    // A window is done with once it is counted and no packet can start before it ends: nothing
    // queued starts before the link is free and its arrival, nothing new arrives before now.
    double earliest_start = static_cast<double>(now_ns);
    for (const std::deque<Queued>& queue : queues_) {
      if (!queue.empty())
        earliest_start = std::min(
            earliest_start, std::max(free_at_ns_, static_cast<double>(queue.front().arrival_ns)));
    }
    while (first_pause_ < pauses_.size() && pauses_[first_pause_].end_ns <= now_ns &&
           static_cast<double>(pauses_[first_pause_].end_ns) <= earliest_start) {
      ++first_pause_;
    }
    // A link paused every millisecond for hours must not keep every window it has passed.
    if (first_pause_ >= kPassedPausesKept) {
      pauses_.erase(pauses_.begin(), pauses_.begin() + static_cast<std::ptrdiff_t>(first_pause_));
      first_pause_ = 0;
    }
    accounted_ns_ = std::max(accounted_ns_, now_ns);
  }

  LinkSettings settings_;
  double service_ns_;
  double free_at_ns_ = 0;
  std::array<std::deque<Queued>, sched::kPfcPriorities> queues_;  // [0] only, unless per priority
  std::size_t queued_ = 0;
  std::vector<Delivery<Tag>> delivered_;
  std::vector<Tag> lost_;
  std::vector<Pause> pauses_;
  std::size_t first_pause_ = 0;
  std::uint64_t accounted_ns_ = 0;
  LinkCounters counters_;
  std::mt19937_64 random_;
  std::uniform_real_distribution<double> coin_;
};

}  // namespace braid::linkemu
