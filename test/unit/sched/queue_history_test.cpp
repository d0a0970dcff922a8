#include "sched/queue_history.hpp"

#include <gtest/gtest.h>

namespace braid::sched {
namespace {

TEST(QueueHistory, APacketHasLeftOnceWhatWasQueuedAheadOfItWasSent) {
  QueueHistory history;
  history.record(1000, 500, 40);  // counted up to t=1000: 40 queued, 500 sent so far
  history.record(2000, 520, 90);
  // Distributed at t=900: behind at most the 40 of the first record.
  EXPECT_FALSE(history.left(900, 539));
  EXPECT_TRUE(history.left(900, 540));
  // At t=1500: only the second record counts it, with 90 ahead.
  EXPECT_FALSE(history.left(1500, 609));
  EXPECT_TRUE(history.left(1500, 610));
}

TEST(QueueHistory, APacketNoRecordCountsYetHasNotLeft) {
  QueueHistory history;
  EXPECT_FALSE(history.left(0, 1'000'000));
  history.record(1000, 0, 0);
  EXPECT_TRUE(history.left(1000, 0));  // an empty queue at the record
  EXPECT_FALSE(history.left(1001, 1'000'000));
}

TEST(QueueHistory, ACounterThatWentBackwardsForgetsTheOldRecords) {
  QueueHistory history;
  history.record(1000, 500, 40);
  history.record(2000, 10, 5);  // the port was reset
  // Judged by the new record alone (against the old one, 15 sent would be far below 500).
  EXPECT_FALSE(history.left(900, 14));
  EXPECT_TRUE(history.left(900, 15));
}

TEST(QueueHistory, CountedTimesStayInOrder) {
  QueueHistory history;
  history.record(2000, 100, 10);
  history.record(1500, 110, 0);  // a worker measured late: no earlier than what came before
  EXPECT_FALSE(history.left(1800, 109));
  EXPECT_TRUE(history.left(1800, 110));
}

}  // namespace
}  // namespace braid::sched
