// Worker liveness (the "driver heartbeat", issue 15): the protocol loop reads every worker's
// poll-loop counter (datapath::WorkerCounters::loops, a relaxed load: nothing is added to the
// workers' path) every check period and raises an alarm for a worker whose counter has not moved
// for longer than the stall limit: its queues are no longer served. Pure (counter values and time
// are injected), so the timeline is unit-tested; Engine::poll_control drives it while the
// workers run (doc/architecture.md, "Worker liveness").
//
//   WorkerLiveness liveness(100'000'000, workers);
//   liveness.restart(now);                                  // workers (re)launched
//   for (const auto& e : liveness.check(loops, now)) ...    // e.worker, e.stalled, e.still_ns
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/stall_watch.hpp"

namespace braid::engine {

class WorkerLiveness {
 public:
  struct Event {
    std::size_t worker = 0;
    bool stalled = false;        // true: the alarm was raised; false: it cleared
    std::uint64_t still_ns = 0;  // how long the counter had not moved (raise), or did not (clear)
  };
  struct Worker {
    bool stalled = false;
    std::uint64_t stalled_since_ns = 0;  // when its counter last moved, while stalled
    std::uint64_t raised_ns = 0;         // when the last alarm was raised
    std::uint64_t stalls = 0;            // alarms raised
    std::uint64_t last_stall_ns = 0;     // the length of the last stall that ended
    std::uint64_t longest_stall_ns = 0;  // of those that ended
  };

  WorkerLiveness(std::uint64_t stall_limit_ns, std::size_t workers);

  // The workers were (re)launched: their counters are baselines again, and alarms raised
  // before (a worker that stopped with the engine) clear without an event.
  void restart(std::uint64_t now_ns);
  // One check: `loops[w]` is worker w's counter now. Returns the alarms raised and cleared.
  std::vector<Event> check(std::span<const std::uint64_t> loops, std::uint64_t now_ns);
  // When the next check is due: every quarter of the limit (at least 1 ms), so an alarm comes
  // at most a quarter of the limit after it is due.
  std::uint64_t next_check_ns() const { return next_check_ns_; }
  std::uint64_t period_ns() const { return period_ns_; }
  std::uint64_t stall_limit_ns() const { return watch_.limit_ns(); }

  const std::vector<Worker>& workers() const { return workers_; }
  // How long worker w's counter has not moved, as of the last check.
  std::uint64_t still_ns(std::size_t w) const { return watch_.still_for_ns(w, checked_ns_); }
  std::size_t stalled_count() const;

 private:
  StallWatch watch_;
  std::uint64_t period_ns_;
  std::uint64_t next_check_ns_ = 0;
  std::uint64_t checked_ns_ = 0;
  std::vector<Worker> workers_;
};

}  // namespace braid::engine
