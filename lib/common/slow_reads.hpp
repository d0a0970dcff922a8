// A helper thread for reads that may block for as long as the kernel likes: a PMD's xstats that
// mlx5 answers through an ethtool ioctl under the rtnl lock, ethtool statistics, sysfs RDMA
// counters. Neither the protocol loop (its deadlines) nor the management thread (its clients)
// waits for one: they post the read as a Job and go on. The helper runs jobs in order, one at
// a time (so two reads of one port never race in the PMD); a job's `done`, if any, runs on the
// thread that calls collect() (the management thread: a command's reply); a job the protocol
// loop posts hands its result back itself (PendingRead below) and wakes the loop.
//
//   SlowReads reads;                        // starts the helper ("braid-reads")
//   reads.post(std::move(job));             // any thread
//   reads.collect();                        // management thread, when finished_fd() is readable
#pragma once

#include <pthread.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "common/job_durations.hpp"
#include "common/job_queue.hpp"
#include "common/waker.hpp"

namespace braid {

class SlowReads {
 public:
  static constexpr std::size_t kMaxWaiting = 256;

  SlowReads() : thread_([this] { run(); }) {}
  ~SlowReads() { stop(); }
  SlowReads(const SlowReads&) = delete;
  SlowReads& operator=(const SlowReads&) = delete;

  // Any thread. False when kMaxWaiting jobs wait already or the helper has stopped.
  bool post(std::unique_ptr<Job> job) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_ || posted_.size() >= kMaxWaiting) return false;
      posted_.push_back(std::move(job));
    }
    wake_.notify_one();
    return true;
  }
  // Management thread: readable when jobs with a `done` have come back.
  int finished_fd() const { return finished_waker_.fd(); }
  // Management thread: runs the `done` of every job that came back; returns how many.
  std::size_t collect() {
    finished_waker_.drain();
    std::deque<std::unique_ptr<Job>> finished;
    {
      std::lock_guard lock(mutex_);
      finished.swap(finished_);
    }
    for (const auto& job : finished)
      job->done();
    return finished.size();
  }
  // Finishes the job under way, drops those waiting (their `done` never runs) and joins.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      posted_.clear();
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  // How long each kind of read took (any thread: a copy under the lock).
  std::vector<JobDurations::Row> durations(std::uint64_t now_ns) const {
    std::lock_guard lock(mutex_);
    return durations_.rows(now_ns);
  }

 private:
  void run() {
    pthread_setname_np(pthread_self(), "braid-reads");
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || !posted_.empty(); });
      if (stopping_) return;
      std::unique_ptr<Job> job = std::move(posted_.front());
      posted_.pop_front();
      lock.unlock();
      const std::uint64_t start_ns = monotonic_ns();
      if (job->work) job->work();
      const std::uint64_t end_ns = monotonic_ns();
      lock.lock();
      durations_.record(job->kind, end_ns - start_ns, end_ns);
      if (job->done) {
        finished_.push_back(std::move(job));
        finished_waker_.notify();
      }
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Job>> posted_;
  std::deque<std::unique_ptr<Job>> finished_;
  JobDurations durations_;
  Waker finished_waker_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

// One read the protocol loop hands to SlowReads and picks up later: at most one under way.
// Protocol loop only, except the helper's hand-back inside the posted job.
template <typename Result>
class PendingRead {
 public:
  // Posts `read`; the helper wakes `loop` (if any) when it is done. False when one is under
  // way already or the helper does not take it.
  bool start(SlowReads& reads, std::string kind, std::function<Result()> read, const Waker* loop) {
    if (under_way_) return false;
    auto job = std::make_unique<Job>();
    job->kind = std::move(kind);
    job->work = [state = state_, read = std::move(read), loop] {
      Result result = read();
      {
        std::lock_guard lock(state->mutex);
        state->result = std::move(result);
      }
      if (loop != nullptr) loop->notify();
    };
    under_way_ = reads.post(std::move(job));
    return under_way_;
  }
  // The result once the helper has it (no read is under way after that).
  std::optional<Result> take() {
    if (!under_way_) return std::nullopt;
    std::lock_guard lock(state_->mutex);
    if (!state_->result) return std::nullopt;
    under_way_ = false;
    return std::exchange(state_->result, std::nullopt);
  }
  bool under_way() const { return under_way_; }

 private:
  struct State {
    std::mutex mutex;
    std::optional<Result> result;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
  bool under_way_ = false;
};

}  // namespace braid
