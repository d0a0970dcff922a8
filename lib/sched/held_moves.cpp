#include "sched/held_moves.hpp"

#include <algorithm>

namespace braid::sched {

void HeldMoves::begin(Kind kind, std::uint32_t bucket, MemberIndex from, MemberIndex to,
                      std::uint64_t now_ns, std::uint64_t last_seen_ns, std::uint64_t gap_ns,
                      std::uint64_t drain_ns) {
  Move move;
  move.bucket = bucket;
  move.from = from;
  move.to = to;
  move.kind = kind;
  move.since_ns = now_ns;
  move.last_before_ns = last_seen_ns;
  // An idle bucket was idle past the gap and the drain time when decided; a busy one needs both
  // after its hold began.
  move.settle_ns = kind == Kind::kBusy ? gap_ns : 0;
  move.wait_ns = kind == Kind::kBusy ? gap_ns + drain_ns : drain_ns;
  move.ack_deadline_ns = now_ns + kAckPatienceBaseNs + 2 * gap_ns;
  moves_.push_back(move);
}

void HeldMoves::extend(std::span<const std::uint64_t> drain_ns) {
  for (Move& move : moves_) {
    if (move.kind == Kind::kBusy && move.from < drain_ns.size())
      move.wait_ns = std::max(move.wait_ns, move.settle_ns + drain_ns[move.from]);
  }
}

void HeldMoves::note_published(std::uint64_t generation) {
  for (Move& move : moves_) {
    if (move.hold_generation == 0) move.hold_generation = generation;
  }
}

void HeldMoves::forget_ended(std::span<const MemberIndex> table) {
  std::erase_if(moves_, [table](const Move& move) {
    return move.bucket >= table.size() || table[move.bucket] != bond::kHeldBucket;
  });
}

std::uint64_t HeldMoves::next_check(const Move& move) {
  return move.recheck_ns != 0 ? move.recheck_ns
                              : move.since_ns + std::max(move.settle_ns, kRecheckNs);
}

// Whether a worker may still send the bucket's packets to its old member: it has not
// acknowledged the table that holds the bucket (or that table is not published yet).
bool HeldMoves::unacknowledged(const Move& move, std::span<const MemberProgress> members) {
  const MemberProgress* old = move.from < members.size() ? &members[move.from] : nullptr;
  if (old == nullptr || !old->distributing) return false;
  return old->acked_generation != kAckedAll &&
         (move.hold_generation == 0 || old->acked_generation < move.hold_generation);
}

// Whether the bucket's last packet has left its old member (see the file comment).
bool HeldMoves::last_packet_left(Move& move, std::uint64_t now_ns,
                                 std::span<const MemberProgress> members,
                                 std::span<const std::uint64_t> last_seen_ns) {
  if (now_ns < move.since_ns + move.settle_ns) return false;
  const MemberProgress* old = move.from < members.size() ? &members[move.from] : nullptr;
  // A member that stopped distributing failed over: what its queue held is not waited for.
  if (old == nullptr || !old->distributing) return true;
  // A worker that has not acknowledged the table that holds the bucket (or a table not yet
  // published) may still send its packets to the old member: ask again.
  if (unacknowledged(move, members)) {
    move.recheck_ns = now_ns + kRecheckNs;
    return false;
  }
  // An empty queue holds nothing of the bucket.
  if (old->queue_depth && *old->queue_depth == 0) return true;
  const bool quiet =
      move.bucket < last_seen_ns.size() && last_seen_ns[move.bucket] <= move.last_before_ns;
  if (quiet && move.kind == Kind::kIdle && (old->history == nullptr || old->history->empty()))
    return true;  // decided on the drain estimate, and nothing came since
  if (quiet && old->history != nullptr && old->sent &&
      old->history->left(move.last_before_ns, *old->sent)) {
    return true;
  }
  if (old->sent && old->queue_depth) {
    if (!move.ahead) {
      move.ahead = *old->queue_depth;
      move.sent_then = *old->sent;
    }
    if (*old->sent >= move.sent_then && *old->sent - move.sent_then >= *move.ahead) return true;
    move.recheck_ns = now_ns + kRecheckNs;
    return false;
  }
  // No counters to follow the old queue by: the drain estimate from when the move began.
  if (now_ns >= move.since_ns + move.wait_ns) return true;
  move.recheck_ns = move.since_ns + move.wait_ns;
  return false;
}

MemberIndex HeldMoves::destination(const Move& move, std::span<const MemberProgress> members,
                                   std::span<const double> member_load) {
  if (move.to < members.size() && members[move.to].distributing) return move.to;
  auto load_of = [member_load](std::size_t m) {
    return m < member_load.size() ? member_load[m] : 0.0;
  };
  MemberIndex to = bond::kNoMember;
  for (std::size_t m = 0; m < members.size(); ++m) {
    if (!members[m].distributing || m == move.from) continue;
    if (to == bond::kNoMember || load_of(m) < load_of(to)) to = static_cast<MemberIndex>(m);
  }
  // Only the old member is left: returning there is safe, its queue holds none of these.
  if (to == bond::kNoMember && move.from < members.size() && members[move.from].distributing)
    to = move.from;
  return to;
}

std::uint32_t HeldMoves::release_due(std::uint64_t now_ns, std::span<MemberIndex> table,
                                     std::span<const MemberProgress> members,
                                     std::span<const std::uint64_t> last_seen_ns,
                                     std::span<const double> member_load) {
  forget_ended(table);
  std::erase_if(resting_, [now_ns](const Rest& rest) { return rest.until_ns <= now_ns; });
  std::uint32_t released = 0;
  std::erase_if(moves_, [&](Move& move) {
    if (now_ns >= move.ack_deadline_ns && unacknowledged(move, members)) {
      // Given up: back where its packets went, behind whatever they left there.
      table[move.bucket] = move.from;
      ++holds_timed_out_;
      if (move.kind == Kind::kBusy) resting_.push_back({move.bucket, now_ns + kRestNs});
      return true;
    }
    if (!last_packet_left(move, now_ns, members, last_seen_ns)) return false;
    const MemberIndex to = destination(move, members, member_load);
    if (to == bond::kNoMember) {
      move.recheck_ns = now_ns + kRecheckNs;  // nowhere to go yet: ask again, not at once
      return false;
    }
    table[move.bucket] = to;
    ++released;
    if (move.kind == Kind::kBusy) {
      ++busy_completed_;
      resting_.push_back({move.bucket, now_ns + kRestNs});
    }
    return true;
  });
  return released;
}

void HeldMoves::show_destinations(std::span<MemberIndex> view) const {
  for (const Move& move : moves_) {
    if (move.bucket < view.size()) view[move.bucket] = move.to;
  }
}

void HeldMoves::mark_held(std::span<MemberIndex> table) const {
  for (const Move& move : moves_) {
    if (move.bucket < table.size()) table[move.bucket] = bond::kHeldBucket;
  }
}

void HeldMoves::mark_held(std::span<bool> mask) const {
  for (const Move& move : moves_) {
    if (move.bucket < mask.size()) mask[move.bucket] = true;
  }
}

bool HeldMoves::resting(std::uint32_t bucket, std::uint64_t now_ns) const {
  return std::any_of(resting_.begin(), resting_.end(), [bucket, now_ns](const Rest& rest) {
    return rest.bucket == bucket && now_ns < rest.until_ns;
  });
}

std::size_t HeldMoves::busy_in_progress() const {
  return static_cast<std::size_t>(std::count_if(
      moves_.begin(), moves_.end(), [](const Move& move) { return move.kind == Kind::kBusy; }));
}

std::uint64_t HeldMoves::next_release_ns() const {
  std::uint64_t next = 0;
  for (const Move& move : moves_) {
    const std::uint64_t check = next_check(move);
    if (next == 0 || check < next) next = check;
  }
  return next;
}

}  // namespace braid::sched
