#include "common/job_queue.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "common/clock.hpp"
#include "common/job_durations.hpp"

namespace braid {
namespace {

std::unique_ptr<Job> job_holding(const std::shared_ptr<int>& token, int& runs) {
  auto job = std::make_unique<Job>();
  job->work = [token, &runs] { ++runs; };
  return job;
}

// Issue 33 item 11: a job the protocol loop ran but could not hand back (the finished queue
// was full) is freed with the queue, like the ones still waiting either way.
TEST(JobQueue, AJobRunButNotHandedBackIsFreedWithTheQueue) {
  auto token = std::make_shared<int>(0);
  const std::weak_ptr<int> alive = token;
  int runs = 0;
  {
    JobQueue jobs(1);
    ASSERT_TRUE(jobs.post(job_holding(token, runs)));
    EXPECT_TRUE(jobs.run_one());  // handed back: the finished queue holds it
    ASSERT_TRUE(jobs.post(job_holding(token, runs)));
    EXPECT_TRUE(jobs.run_one());                       // run, but no room to hand it back: it waits
    ASSERT_TRUE(jobs.post(job_holding(token, runs)));  // and one not run yet
    EXPECT_EQ(runs, 2);
    token.reset();
    EXPECT_FALSE(alive.expired());
  }
  EXPECT_TRUE(alive.expired()) << "a job outlived its queue";
}

TEST(JobQueue, FinishedJobsComeBackInOrder) {
  JobQueue jobs(4);
  std::vector<int> done;
  for (int i = 0; i < 3; ++i) {
    auto job = std::make_unique<Job>();
    job->done = [&done, i] { done.push_back(i); };
    ASSERT_TRUE(jobs.post(std::move(job)));
  }
  while (jobs.run_one()) {
  }
  EXPECT_EQ(jobs.collect(), 3u);
  EXPECT_EQ(done, (std::vector<int>{0, 1, 2}));
}

TEST(JobDurations, EachKindKeepsItsRunsLastAndWorst) {
  JobDurations durations;
  const std::uint64_t s = WorstWindow::kSecondNs;
  durations.record("command", 300'000, 10 * s);
  durations.record("snapshot", 2'000'000, 10 * s);
  durations.record("command", 100'000, 11 * s);
  std::vector<JobDurations::Row> rows = durations.rows(11 * s);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "command");
  EXPECT_EQ(rows[0].runs, 2u);
  EXPECT_EQ(rows[0].last_ns, 100'000u);
  EXPECT_EQ(rows[0].worst_ns, 300'000u);
  EXPECT_EQ(rows[0].worst_last_minute_ns, 300'000u);
  EXPECT_EQ(rows[1].kind, "snapshot");
  // A minute later the 300 us command is out of the window, not out of the record.
  rows = durations.rows(70 * s);
  EXPECT_EQ(rows[0].worst_last_minute_ns, 100'000u);
  EXPECT_EQ(rows[0].worst_ns, 300'000u);
  EXPECT_EQ(durations.rows(200 * s)[0].worst_last_minute_ns, 0u);
}

TEST(JobQueue, RunOneTimesEachJobUnderItsKind) {
  JobQueue jobs(4);
  JobDurations durations;
  auto job = std::make_unique<Job>();
  job->kind = "stats";
  job->work = [] {
    const std::uint64_t start = monotonic_ns();
    while (monotonic_ns() - start < 2'000'000) {
    }
  };
  ASSERT_TRUE(jobs.post(std::move(job)));
  ASSERT_TRUE(jobs.run_one(&durations));
  const std::vector<JobDurations::Row> rows = durations.rows(monotonic_ns());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "stats");
  EXPECT_GE(rows[0].last_ns, 2'000'000u);
}

}  // namespace
}  // namespace braid
