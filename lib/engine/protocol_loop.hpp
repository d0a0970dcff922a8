// The protocol loop: the main lcore's thread, and the only writer of bond, LACP and scheduler
// state (doc/architecture.md, "Threads"). An iteration serves every input with a budget: kernel
// link notifications, each bond's links, Slow Protocols frames and LACP timers, each scheduler's
// period (Engine::poll_control); then management jobs (console and socket commands, metrics and
// telemetry renders, lib/common/job_queue.hpp) for at most `job_budget_ns`, and only while no
// deadline is due; then it sleeps until the earliest deadline, or until something wakes it: a
// link interrupt, a posted job, a kernel notification, a stop request. Nothing a client does
// can hold it longer than one job, and it measures its own lateness (DeadlineLag).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "common/job_durations.hpp"
#include "common/job_queue.hpp"
#include "engine/engine.hpp"

namespace braid::engine {

struct ProtocolLoopSettings {
  std::uint64_t job_budget_ns = 200'000;  // management jobs per iteration, at most this long
  // Wake at least this often, whatever the deadlines say (a late timer is then caught early).
  std::uint64_t max_sleep_ns = 100'000'000;
  // 1..99: run SCHED_FIFO at this priority (config control.protocol_rt_priority); 0: as is.
  unsigned rt_priority = 0;
};

class ProtocolLoop {
 public:
  ProtocolLoop(Engine& engine, JobQueue& jobs, ProtocolLoopSettings settings = {});

  // Runs until request_stop() or `until_ns` (monotonic). `tick` (optional) runs every
  // iteration after the engine's work and returns its own next deadline.
  void run(std::uint64_t until_ns = UINT64_MAX,
           const std::function<std::uint64_t(std::uint64_t now_ns)>& tick = {});
  // Any thread, signal handlers included (an atomic store and a write(2)).
  void request_stop();
  bool stop_requested() const { return stop_.load(std::memory_order_acquire); }

  std::uint64_t iterations() const { return iterations_.load(std::memory_order_relaxed); }
  std::uint64_t jobs_run() const { return jobs_run_.load(std::memory_order_relaxed); }
  // Iterations whose job budget ran out with jobs still waiting.
  std::uint64_t job_budget_hits() const { return job_budget_hits_.load(std::memory_order_relaxed); }
  // How long each kind of job took. On the protocol loop only (`show control` and the metrics
  // render are jobs themselves).
  const JobDurations& job_durations() const { return job_durations_; }
  // What applying the settings did ("" when nothing to say), for the log.
  const std::string& note() const { return note_; }

 private:
  void run_jobs(std::uint64_t now_ns, std::uint64_t next_deadline_ns);
  void sleep_until(std::uint64_t now_ns, std::uint64_t deadline_ns);

  Engine& engine_;
  JobQueue& jobs_;
  ProtocolLoopSettings settings_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> iterations_{0};
  std::atomic<std::uint64_t> jobs_run_{0};
  std::atomic<std::uint64_t> job_budget_hits_{0};
  JobDurations job_durations_;
  std::string note_;
};

}  // namespace braid::engine
