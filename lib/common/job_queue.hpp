// Management work handed to the protocol loop. Only the protocol loop reads or changes bond,
// LACP and scheduler state, so every console command, socket request and metrics or telemetry
// render runs there, as a job: the management thread posts it, the protocol loop runs jobs
// between its deadlines within a time budget (ProtocolLoop), and hands each back, and the
// management thread finishes it (writes the reply). Neither side waits for the other: two
// lock-free queues, and an eventfd each way to wake the one asleep.
//
// One producer (the management thread) and one consumer (the protocol loop).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/clock.hpp"
#include "common/job_durations.hpp"
#include "common/spsc_queue.hpp"
#include "common/waker.hpp"

namespace braid {

struct Job {
  std::function<void()> work;  // on the protocol loop
  std::function<void()> done;  // back on the management thread
  std::uint64_t posted_ns = 0;
  std::string kind = "command";  // what JobDurations counts it as
};

class JobQueue {
 public:
  explicit JobQueue(std::size_t capacity = 1024) : posted_(capacity), finished_(capacity) {}
  ~JobQueue() {
    delete stalled_;  // run, but the finished queue was full
    while (Job* job = posted_.pop())
      delete job;
    while (Job* job = finished_.pop())
      delete job;
  }
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // The protocol loop's waker: post() wakes it.
  void set_protocol_waker(const Waker* waker) { protocol_waker_ = waker; }

  // Management thread. False when the protocol loop has `capacity` jobs waiting already.
  bool post(std::unique_ptr<Job> job) {
    if (!posted_.push(job.get())) return false;
    job.release();
    if (protocol_waker_ != nullptr) protocol_waker_->notify();
    return true;
  }
  // Management thread: readable when jobs have come back.
  int finished_fd() const { return finished_waker_.fd(); }
  // Management thread: finishes every job that has come back; returns how many.
  std::size_t collect() {
    finished_waker_.drain();
    std::size_t count = 0;
    while (Job* job = finished_.pop()) {
      std::unique_ptr<Job> owned(job);
      if (owned->done) owned->done();
      ++count;
    }
    return count;
  }

  // Protocol loop: runs one job if there is one and there is room to hand it back; its duration
  // goes to `durations` (optional).
  bool run_one(JobDurations* durations = nullptr) {
    if (stalled_ != nullptr) {
      if (!finished_.push(stalled_)) return false;
      stalled_ = nullptr;
    }
    Job* job = posted_.pop();
    if (job == nullptr) return false;
    const std::uint64_t start_ns = durations != nullptr ? monotonic_ns() : 0;
    if (job->work) job->work();
    if (durations != nullptr) {
      const std::uint64_t end_ns = monotonic_ns();
      durations->record(job->kind, end_ns - start_ns, end_ns);
    }
    if (!finished_.push(job)) stalled_ = job;  // handed back at the next call
    finished_waker_.notify();
    return true;
  }
  bool pending() const { return !posted_.empty(); }
  std::size_t waiting() const { return posted_.size(); }

 private:
  SpscQueue<Job> posted_;
  SpscQueue<Job> finished_;
  Job* stalled_ = nullptr;
  Waker finished_waker_;
  const Waker* protocol_waker_ = nullptr;
};

}  // namespace braid
