// Held moves: how the scheduler moves a bucket without reordering a flow, idle or busy.
//
// A bucket moves without reordering once everything it sent on its old member has left that
// member's queue before its next packet leaves on the new one. Deciding that from a snapshot is
// racy: the workers keep distributing while the scheduler decides, so a packet can reach the old
// member after the snapshot and before the workers see the new table, behind a queue that may
// take milliseconds to drain (a paused member). So every move has two steps:
//
// 1. The table marks the bucket kHeldBucket. From their next burst the workers hold its packets
//    in order instead of sending them (lib/bond/dpdk/bucket_hold.hpp) and send what their TX
//    buffers had for the old member at once.
// 2. Once every worker has acknowledged that table's generation (the generation each worker
//    distributed on when it last measured the old member's queue, MemberInput::acked_generation),
//    nothing of the bucket can reach the old member any more. Generations, not times: a worker
//    measurement taken after the decision but before the publication says nothing about the
//    hold, however its time compares. The move
//    completes (the table names the new member; each worker sends what it held there first)
//    when the bucket's last packet has left the old member: when that queue is empty; at once if
//    no packet came since the decision and the old member's counters show its last one gone
//    (queue_history.hpp); else when the old member has sent as many packets as it had queued at
//    that point (packets it dropped instead are overtaken by later ones it sends, or its queue
//    empties); without a sent counter, when that queue would have drained at the rate it sent
//    last period.
//
// A worker that does not acknowledge (descheduled, stuck in a PMD's tx_burst) would keep every
// other worker holding the bucket's packets until their hold buffers overflow (`flowlet_hold`
// drops). So the acknowledgement is waited for at most kAckPatienceBaseNs + 2 flowlet gaps; then
// the bucket goes back to its old member (where nothing it holds can be overtaken: the held
// packets follow whatever is still queued there), counted in holds_timed_out().
//
// An idle bucket (a flowlet) completes its move within a worker drain interval, holding nothing.
// A busy bucket, an elephant that never goes idle, or any bucket of a member whose queue stands
// longer than the flowlet gap (paused, overloaded), can only move this way: the hold makes the
// gap instead of waiting for it, and its packets wait about as long as they would have waited in
// the old member's standing queue. A busy move also waits one flowlet gap (path skew).
//
// Pure: no DPDK, time injected.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bond/bucket_assignment.hpp"
#include "sched/queue_history.hpp"

namespace braid::sched {

using bond::MemberIndex;

// MemberProgress::acked_generation (MemberInput) when every generation is seen: simulations.
inline constexpr std::uint64_t kAckedAll = UINT64_MAX;

// What a move needs to know about each member when it checks.
struct MemberProgress {
  bool distributing = false;
  std::optional<std::uint32_t> queue_depth;
  std::optional<std::uint64_t> sent;  // tx_packets, when the congestion source has it
  // Everything distributed to the member before this time is in queue_depth or sent.
  std::uint64_t counted_ns = 0;
  // The oldest table generation a worker distributed on when it measured the member's queue.
  std::uint64_t acked_generation = kAckedAll;
  const QueueHistory* history = nullptr;  // none: the member's counters are incomplete
};

class HeldMoves {
 public:
  enum class Kind : std::uint8_t {
    kIdle,  // a flowlet: idle past the gap when decided
    kBusy,  // a busy bucket (the policy's hold request)
  };
  struct Move {
    std::uint32_t bucket = 0;
    MemberIndex from = 0;
    MemberIndex to = 0;
    Kind kind = Kind::kIdle;
    std::uint64_t since_ns = 0;         // when the move was decided
    std::uint64_t hold_generation = 0;  // the table that holds it; 0: not published yet
    std::uint64_t last_before_ns = 0;   // the bucket's last packet when the move was decided
    std::uint64_t settle_ns = 0;        // busy: the flowlet gap after the hold began
    std::uint64_t wait_ns = 0;  // without a sent counter: settle + the old member's drain time
    std::optional<std::uint32_t> ahead;  // packets queued on the old member when counted
    std::uint64_t sent_then = 0;         // its sent counter then
    std::uint64_t recheck_ns = 0;
    std::uint64_t ack_deadline_ns = 0;  // unacknowledged then: back to `from`
  };

  // How often a move that cannot complete yet is looked at again: about a worker drain interval.
  static constexpr std::uint64_t kRecheckNs = 100'000;
  // A busy bucket a hold moved is not held again for this long: holds answer standing
  // congestion, not the noise of one period, and must not chase a bucket from member to member.
  static constexpr std::uint64_t kRestNs = 100'000'000;
  // The workers' acknowledgement of a hold is waited for this long plus two flowlet gaps.
  static constexpr std::uint64_t kAckPatienceBaseNs = 10'000'000;

  // A move begins at `now_ns`; the caller puts kHeldBucket in the table. `last_seen_ns`: the
  // bucket's last packet; `drain_ns`: the old member's drain time (rate estimate).
  void begin(Kind kind, std::uint32_t bucket, MemberIndex from, MemberIndex to,
             std::uint64_t now_ns, std::uint64_t last_seen_ns, std::uint64_t gap_ns,
             std::uint64_t drain_ns);
  // The old member drains slower than estimated: a busy hold never ends earlier than the gap
  // plus the longest drain time seen since it began. `drain_ns` by member.
  void extend(std::span<const std::uint64_t> drain_ns);
  // Forgets moves the bond ended itself (a policy change to hash or a rebuild released them).
  void forget_ended(std::span<const MemberIndex> table);
  // The moves begun since the last publication are held by table `generation`.
  void note_published(std::uint64_t generation);
  // Completes every move whose bucket's last packet has left its old member: `table` names the
  // planned member, or the least loaded one that distributes when it no longer does (none: the
  // bucket stays held). `members` and `member_load` by member, `last_seen_ns` by bucket. Returns
  // how many completed.
  std::uint32_t release_due(std::uint64_t now_ns, std::span<MemberIndex> table,
                            std::span<const MemberProgress> members,
                            std::span<const std::uint64_t> last_seen_ns,
                            std::span<const double> member_load);

  // The policy sees each held bucket on its destination, where its load is about to go.
  void show_destinations(std::span<MemberIndex> view) const;
  // Puts kHeldBucket back for every bucket still held (in a table planned on that view).
  void mark_held(std::span<MemberIndex> table) const;
  // Sets `mask[bucket]` for every bucket held.
  void mark_held(std::span<bool> mask) const;
  // A busy bucket a hold moved less than kRestNs before `now_ns`.
  bool resting(std::uint32_t bucket, std::uint64_t now_ns) const;
  // When release_due() should next be called; 0 when nothing is held.
  std::uint64_t next_release_ns() const;
  std::size_t in_progress() const { return moves_.size(); }
  std::size_t busy_in_progress() const;
  std::uint64_t busy_completed() const { return busy_completed_; }
  // Moves given up because a worker did not acknowledge the hold in time.
  std::uint64_t holds_timed_out() const { return holds_timed_out_; }

 private:
  struct Rest {
    std::uint32_t bucket;
    std::uint64_t until_ns;
  };

  static std::uint64_t next_check(const Move& move);
  static bool unacknowledged(const Move& move, std::span<const MemberProgress> members);
  static bool last_packet_left(Move& move, std::uint64_t now_ns,
                               std::span<const MemberProgress> members,
                               std::span<const std::uint64_t> last_seen_ns);
  static MemberIndex destination(const Move& move, std::span<const MemberProgress> members,
                                 std::span<const double> member_load);

  std::vector<Move> moves_;
  std::vector<Rest> resting_;
  std::uint64_t busy_completed_ = 0;
  std::uint64_t holds_timed_out_ = 0;
};

}  // namespace braid::sched
