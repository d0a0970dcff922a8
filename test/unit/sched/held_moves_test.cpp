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
