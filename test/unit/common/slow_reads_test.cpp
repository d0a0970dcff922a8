#include "common/slow_reads.hpp"

#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace braid {
namespace {

void collect_until(SlowReads& reads, std::size_t count, std::size_t& collected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (collected < count && std::chrono::steady_clock::now() < deadline) {
    collected += reads.collect();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(SlowReads, RunsJobsInOrderOnItsThreadAndHandsDoneToTheCollector) {
  SlowReads reads;
  std::vector<int> order;  // written by the helper only, read after it is done
  std::vector<int> done;
  const std::thread::id here = std::this_thread::get_id();
  std::atomic<bool> elsewhere{true};
  for (int i = 0; i < 5; ++i) {
    auto job = std::make_unique<Job>();
    job->kind = "read";
    job->work = [&order, &elsewhere, here, i] {
      if (std::this_thread::get_id() == here) elsewhere = false;
      order.push_back(i);
    };
    job->done = [&done, i] { done.push_back(i); };
    ASSERT_TRUE(reads.post(std::move(job)));
  }
  std::size_t collected = 0;
  collect_until(reads, 5, collected);
  EXPECT_EQ(collected, 5u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(done, order);
  EXPECT_TRUE(elsewhere.load());
  const std::vector<JobDurations::Row> rows = reads.durations(monotonic_ns());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "read");
  EXPECT_EQ(rows[0].runs, 5u);
}

TEST(SlowReads, AFullQueueRefusesAndStopDropsWhatWaits) {
  SlowReads reads;
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  auto blocker = std::make_unique<Job>();
  blocker->work = [&] {
    while (!release.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
  };
  ASSERT_TRUE(reads.post(std::move(blocker)));
  for (std::size_t i = 0; i < SlowReads::kMaxWaiting + 1; ++i) {
    auto job = std::make_unique<Job>();
    job->work = [&ran] { ++ran; };
    job->done = [] { FAIL() << "a dropped job's done ran"; };
    if (!reads.post(std::move(job))) {
      EXPECT_GE(i, SlowReads::kMaxWaiting - 1);  // the blocker may still wait in the queue
      break;
    }
  }
  std::thread stopper([&reads] { reads.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  release = true;
  stopper.join();
  EXPECT_EQ(ran.load(), 1);  // the one under way finished, the rest were dropped
  EXPECT_FALSE(reads.post(std::make_unique<Job>()));
  EXPECT_EQ(reads.collect(), 0u);
}

TEST(PendingRead, OneUnderWayAtATimeTheResultTakenOnceAndTheLoopWoken) {
  SlowReads reads;
  Waker loop;
  PendingRead<int> pending;
  std::atomic<bool> release{false};
  EXPECT_FALSE(pending.take().has_value());
  ASSERT_TRUE(pending.start(
      reads, "counters",
      [&release] {
        while (!release.load())
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return 42;
      },
      &loop));
  EXPECT_TRUE(pending.under_way());
  EXPECT_FALSE(pending.start(
      reads, "counters", [] { return 7; }, &loop));  // one at a time
  EXPECT_FALSE(pending.take().has_value());
  release = true;
  pollfd woken{loop.fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&woken, 1, 10'000), 1) << "the helper did not wake the loop";
  const std::optional<int> result = pending.take();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, 42);
  EXPECT_FALSE(pending.under_way());
  EXPECT_FALSE(pending.take().has_value());
}

}  // namespace
}  // namespace braid
