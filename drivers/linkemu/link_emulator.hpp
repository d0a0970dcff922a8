// A running emulated link on injected time: the link model (rate, queue, loss, pauses) plus what
// a link needs around it to carry real packets: the wire, which holds each sent packet until its
// arrival time, and PFC-like pauses injected one at a time (a pause frame with a duration) or as
// a pattern (the switch pauses the link `length_ns` out of every `every_ns`). Its owner offers
// each packet the port sent and polls often; times must not go backwards. Pure: ring_link.hpp
// binds it to rte_rings, mbufs and the monotonic clock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "linkemu/link_model.hpp"

namespace braid::linkemu {

template <typename Tag>
class LinkEmulator {
 public:
  explicit LinkEmulator(const LinkSettings& settings) : model_(settings) {}

  // A packet of PFC priority `priority` the port sent at `now_ns`. False: its queue was full, the
  // packet is the caller's to drop (counted as dropped_queue, the discard a NIC reports).
  bool offer(std::uint64_t now_ns, const Tag& tag, std::uint8_t priority = 0) {
    feed_pauses(now_ns);
    return model_.offer(now_ns, tag, priority);
  }

  // Runs the link up to `now_ns`: packets whose arrival time has come go to `arrived` with that
  // time (in arrival order), packets the link lost to `lost`.
  void poll(std::uint64_t now_ns, std::vector<Delivery<Tag>>& arrived, std::vector<Tag>& lost) {
    feed_pauses(now_ns);
    model_.advance(now_ns);
    sent_.clear();
    model_.take_deliveries(sent_);
    wire_.insert(wire_.end(), sent_.begin(), sent_.end());
    while (!wire_.empty() && wire_.front().time_ns <= now_ns) {
      arrived.push_back(wire_.front());
      wire_.pop_front();
    }
    model_.take_lost(lost);
  }

  // The arrival time of the next packet on the wire; 0 when the wire is empty.
  std::uint64_t next_arrival_ns() const { return wire_.empty() ? 0 : wire_.front().time_ns; }

  // The peer pauses the link from `now_ns` for `duration_ns` (one pause frame), on `priorities`
  // (pfc_priority(3): a PFC frame for priority 3; by default an 802.3x pause of every priority).
  void pause_for(std::uint64_t now_ns, std::uint64_t duration_ns,
                 PriorityMask priorities = kLinkLevelPause) {
    one_shot_.push_back({std::max(now_ns, fed_until_ns_), now_ns + duration_ns, priorities});
  }
  // From `from_ns` on, the peer pauses the link `length_ns` out of every `every_ns`, until
  // stop_pausing(). Replaces any earlier pattern.
  void pause_periodically(std::uint64_t from_ns, std::uint64_t every_ns, std::uint64_t length_ns,
                          PriorityMask priorities = kLinkLevelPause) {
    pattern_ = {std::max(from_ns, fed_until_ns_), every_ns, std::min(length_ns, every_ns),
                priorities};
  }
  void stop_pausing() { pattern_ = {}; }

  // Packets queued (not yet sent) and on the wire (sent, not yet arrived).
  std::uint32_t queue_depth() const { return model_.queue_depth(); }
  std::uint64_t in_flight() const { return model_.queue_depth() + wire_.size(); }
  const LinkCounters& counters() const { return model_.counters(); }
  std::size_t pauses_pending() const { return model_.pauses_pending(); }
  sched::CongestionCounters congestion() const { return model_.congestion(); }

  // Hands back every packet the link still holds (teardown).
  void take_all(std::vector<Tag>& out) {
    model_.take_queued(out);
    for (const Delivery<Tag>& delivery : wire_)
      out.push_back(delivery.tag);
    wire_.clear();
  }

 private:
  // Windows that overlap are handed on one after the other (the later starts where the earlier
  // ends), each with its own priorities.
  struct Window {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    PriorityMask priorities = kLinkLevelPause;
  };
  struct Pattern {
    std::uint64_t next_ns = 0;
    std::uint64_t every_ns = 0;  // 0: no pattern
    std::uint64_t length_ns = 0;
    PriorityMask priorities = kLinkLevelPause;
  };

  // Hands the model every pause window that has begun by `now_ns`, in time order and without
  // overlap (the model counts each window's time as paused time).
  void feed_pauses(std::uint64_t now_ns) {
    while (true) {
      Window next{UINT64_MAX, 0, kLinkLevelPause};
      bool from_pattern = false;
      if (pattern_.every_ns != 0 && pattern_.next_ns <= now_ns) {
        next = {pattern_.next_ns, pattern_.next_ns + pattern_.length_ns, pattern_.priorities};
        from_pattern = true;
      }
      if (!one_shot_.empty() && one_shot_.front().start_ns <= now_ns &&
          one_shot_.front().start_ns < next.start_ns) {
        next = one_shot_.front();
        from_pattern = false;
      }
      if (next.start_ns == UINT64_MAX) break;
      if (from_pattern) {
        pattern_.next_ns += pattern_.every_ns;
      } else {
        one_shot_.pop_front();
      }
      next.start_ns = std::max(next.start_ns, fed_until_ns_);
      if (next.end_ns > next.start_ns) {
        model_.add_pause(next.start_ns, next.end_ns, next.priorities);
        fed_until_ns_ = next.end_ns;
      }
    }
  }

  LinkModel<Tag> model_;
  std::deque<Delivery<Tag>> wire_;
  std::vector<Delivery<Tag>> sent_;
  std::deque<Window> one_shot_;
  Pattern pattern_;
  std::uint64_t fed_until_ns_ = 0;  // end of the last window handed to the model
};

}  // namespace braid::linkemu
