// The control thread's timer list: named periodic jobs run when their deadline passes (stats
// print, and later LACP ticks, link polling, congestion feedback). Time is injected, so the
// schedule is testable; one home for periodic work instead of `if (++n % 1000)` checks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace braid {

class PeriodicTasks {
 public:
  using Job = std::function<void(std::uint64_t now_ns)>;

  // First run at now_ns + period_ns.
  void add(std::string name, std::uint64_t period_ns, std::uint64_t now_ns, Job job) {
    tasks_.push_back({std::move(name), period_ns, now_ns + period_ns, std::move(job)});
  }

  // Runs every due job once (a late job runs once, then keeps its cadence from now) and
  // returns the earliest next deadline (UINT64_MAX when there are no jobs).
  std::uint64_t run_due(std::uint64_t now_ns) {
    std::uint64_t next = UINT64_MAX;
    for (Task& task : tasks_) {
      if (now_ns >= task.deadline_ns) {
        task.job(now_ns);
        task.deadline_ns += task.period_ns;
        if (task.deadline_ns <= now_ns) task.deadline_ns = now_ns + task.period_ns;
      }
      next = std::min(next, task.deadline_ns);
    }
    return next;
  }

  std::size_t size() const { return tasks_.size(); }

 private:
  struct Task {
    std::string name;
    std::uint64_t period_ns;
    std::uint64_t deadline_ns;
    Job job;
  };
  std::vector<Task> tasks_;
};

}  // namespace braid
