#include "common/job_queue.hpp"

#include <gtest/gtest.h>

#include <memory>

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

}  // namespace
}  // namespace braid
