// Reserved shares (classes.list[].min_share_permille): when a member cannot carry what its
// classes offer it (paused, degraded, a failover's extra load), the classes without a reservation
// give way first. Every period the arbiter looks at each member's queue: when it stayed busy, was
// at least kShortDepth deep and what was offered exceeded what the member sent, the member is
// short. What it sent is then what it can carry (C, packets per period); the classes that give
// way get, together,
//
//   max(C - what the reserved classes offered - a quarter of the backlog above kTargetDepth,
//       (1 - their shares) x C)
//
// split by what each offered: a reserved class that offers less than its share leaves the rest
// to the others, and one that offers more still meets its share (its packets are the larger part
// of what reaches the queue). The data path polices each give-way class to its limit on that
// member (the `class_gave_way` drop), so the queue stops overflowing into every class's packets.
// Once the queue is no longer busy the limits rise by a quarter a period, and are lifted when
// they reach twice what is offered. Pure: no DPDK, time injected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace braid::sched {

// A queue at least this deep at both ends of a period, and growing: its member is short.
inline constexpr std::uint32_t kShortDepth = 32;
// What the limits let the queue drain to.
inline constexpr std::uint32_t kTargetDepth = 16;
// A limit of this many packets per second or more is no limit.
inline constexpr std::uint32_t kUnlimitedPps = UINT32_MAX;

struct ShareMember {
  bool distributing = false;
  std::optional<std::uint32_t> depth;  // its TX queue, packets; nullopt: unknown
  std::optional<std::uint64_t> sent;   // packets it sent (a running counter); nullopt: unknown
};

class ShareArbiter {
 public:
  // Per class: its reserved share (permille; 0: it gives way) and the members it uses (bit m).
  ShareArbiter(std::vector<std::uint32_t> min_share_permille, std::vector<std::uint32_t> uses,
               std::size_t members);

  // Once per period: `offered` is what each class offered each member since the last step,
  // class-major (offered[c * members + m], packets).
  void step(std::uint64_t elapsed_ns, std::span<const ShareMember> members,
            std::span<const std::uint64_t> offered);

  // What class c may send on member m, packets per second (kUnlimitedPps: no limit).
  std::uint32_t limit_pps(std::size_t class_id, std::size_t member) const {
    return limit_pps_[class_id * members_ + member];
  }
  // Whether member m's give-way classes are limited now, and what it carried when last short
  // (packets per second; 0: never short).
  bool limited(std::size_t member) const { return state_[member].limited; }
  double capacity_pps(std::size_t member) const { return state_[member].capacity_pps; }
  std::size_t class_count() const { return shares_.size(); }

 private:
  struct MemberState {
    std::optional<std::uint32_t> depth;  // as of the last step
    std::optional<std::uint64_t> sent;
    bool limited = false;
    double capacity_pps = 0;
  };

  bool gives_way(std::size_t c, std::size_t m) const {
    return shares_[c] == 0 && (uses_[c] >> m & 1) != 0;
  }
  void lift(std::size_t member);
  void arbitrate(std::size_t member, double carried, std::uint32_t depth, double per_second,
                 std::span<const std::uint64_t> offered);
  void loosen(std::size_t member, double per_second, std::span<const std::uint64_t> offered);

  std::vector<std::uint32_t> shares_;
  std::vector<std::uint32_t> uses_;
  std::size_t members_;
  std::vector<MemberState> state_;
  std::vector<std::uint32_t> limit_pps_;  // class-major
};

}  // namespace braid::sched
