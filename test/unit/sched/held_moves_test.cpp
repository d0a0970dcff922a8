#include "sched/held_moves.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace braid::sched {
namespace {

using bond::kHeldBucket;

// The move of bucket 0 from member 0 to member 1, decided at t = 100 and published as table
// generation 7; member 0's queue then measured empty at t = 200.
struct OneMove {
  HeldMoves holds;
  std::vector<MemberIndex> table = {kHeldBucket, 1};
  std::vector<MemberProgress> members = std::vector<MemberProgress>(2);
  std::vector<std::uint64_t> last_seen = {10, 0};
  std::vector<double> load = {0, 0};

  OneMove() {
    holds.begin(HeldMoves::Kind::kIdle, 0, 0, 1, 100, 10, 50, 0);
    for (MemberProgress& member : members) {
      member.distributing = true;
      member.queue_depth = 0;
      member.counted_ns = 200;
    }
  }
  std::uint32_t release(std::uint64_t now_ns) {
    return holds.release_due(now_ns, table, members, last_seen, load);
  }
};

TEST(HeldMoves, AMeasurementAfterTheDecisionButBeforeTheTableIsNotEnough) {
  OneMove move;
  move.holds.note_published(7);
  // A worker measured after the decision (t = 200 > 100) while it still distributed on
  // generation 6: it may still send the bucket's packets to member 0.
  move.members[0].acked_generation = 6;
  EXPECT_EQ(move.release(300), 0u);
  EXPECT_EQ(move.table[0], kHeldBucket);
  // Every worker has adopted generation 7: nothing of the bucket can reach member 0 any more.
  move.members[0].acked_generation = 7;
  EXPECT_EQ(move.release(400), 1u);
  EXPECT_EQ(move.table[0], 1);
}

// Issue 33 item 7: a worker that never acknowledges (descheduled, stuck in tx_burst) would keep
// every other worker holding the bucket until its hold buffer overflows. The hold is given up
// after 10 ms + 2 gaps (gap 50 here): the bucket goes back to member 0, behind what it sent there.
TEST(HeldMoves, AHoldNoWorkerAcknowledgesGoesBackToItsOldMemberInTime) {
  OneMove move;
  move.holds.note_published(7);
  move.members[0].acked_generation = 6;
  const std::uint64_t deadline = 100 + HeldMoves::kAckPatienceBaseNs + 2 * 50;
  EXPECT_EQ(move.release(deadline - 1), 0u);
  EXPECT_EQ(move.table[0], kHeldBucket);
  EXPECT_EQ(move.holds.holds_timed_out(), 0u);
  EXPECT_EQ(move.release(deadline), 0u) << "given up, not completed";
  EXPECT_EQ(move.table[0], 0) << "back to the member its packets went to";
  EXPECT_EQ(move.holds.in_progress(), 0u);
  EXPECT_EQ(move.holds.holds_timed_out(), 1u);
}

TEST(HeldMoves, AnAcknowledgedHoldWaitingForItsQueueIsNotGivenUp) {
  OneMove move;
  move.holds.note_published(7);
  move.members[0].acked_generation = 7;
  move.members[0].queue_depth = 5;  // a standing queue that does not send: the wait is its own
  move.members[0].sent = 100;
  move.last_seen = {500, 0};  // packets came since the decision
  EXPECT_EQ(move.release(100 + HeldMoves::kAckPatienceBaseNs * 3), 0u);
  EXPECT_EQ(move.table[0], kHeldBucket);
  EXPECT_EQ(move.holds.holds_timed_out(), 0u);
  move.members[0].queue_depth = 0;
  EXPECT_EQ(move.release(100 + HeldMoves::kAckPatienceBaseNs * 3 + 1), 1u);
  EXPECT_EQ(move.table[0], 1);
}

TEST(HeldMoves, AMoveNotYetPublishedWaits) {
  OneMove move;
  move.members[0].acked_generation = 100;  // whatever the workers saw, it was not this hold
  EXPECT_EQ(move.release(300), 0u);
  move.holds.note_published(101);
  move.members[0].acked_generation = 101;
  EXPECT_EQ(move.release(400), 1u);
}

TEST(HeldMoves, SimulationsSeeEveryGeneration) {
  OneMove move;  // acked_generation defaults to kAckedAll
  EXPECT_EQ(move.release(300), 1u);
}

}  // namespace
}  // namespace braid::sched
