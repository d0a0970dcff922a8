#include "engine/worker_liveness.hpp"

#include <algorithm>
#include <string>

namespace braid::engine {
namespace {

constexpr std::uint64_t kMinCheckPeriodNs = 1'000'000;

StallWatch make_watch(std::uint64_t stall_limit_ns, std::size_t workers) {
  StallWatch watch(stall_limit_ns);
  for (std::size_t w = 0; w < workers; ++w)
    watch.add("worker " + std::to_string(w));
  return watch;
}

}  // namespace

WorkerLiveness::WorkerLiveness(std::uint64_t stall_limit_ns, std::size_t workers)
    : watch_(make_watch(stall_limit_ns, workers)),
      period_ns_(std::max(stall_limit_ns / 4, kMinCheckPeriodNs)),
      workers_(workers) {}

void WorkerLiveness::restart(std::uint64_t now_ns) {
  watch_ = make_watch(watch_.limit_ns(), workers_.size());
  for (Worker& worker : workers_) {
    worker.stalled = false;
    worker.stalled_since_ns = 0;
  }
  checked_ns_ = now_ns;
  next_check_ns_ = now_ns;
}

std::vector<WorkerLiveness::Event> WorkerLiveness::check(std::span<const std::uint64_t> loops,
                                                         std::uint64_t now_ns) {
  std::vector<Event> events;
  checked_ns_ = now_ns;
  next_check_ns_ = now_ns + period_ns_;
  for (std::size_t w = 0; w < workers_.size() && w < loops.size(); ++w) {
    Worker& worker = workers_[w];
    watch_.observe(w, loops[w], now_ns);
    if (!worker.stalled && watch_.is_stalled(w, now_ns)) {
      worker.stalled = true;
      worker.stalled_since_ns = now_ns - watch_.still_for_ns(w, now_ns);
      worker.raised_ns = now_ns;
      ++worker.stalls;
      events.push_back({w, true, watch_.still_for_ns(w, now_ns)});
    } else if (worker.stalled && !watch_.is_stalled(w, now_ns)) {
      // It moved again somewhere within the last period: the stall is counted up to now, so
      // it is at most one period longer than it was.
      const std::uint64_t lasted_ns = now_ns - worker.stalled_since_ns;
      worker.stalled = false;
      worker.stalled_since_ns = 0;
      worker.last_stall_ns = lasted_ns;
      worker.longest_stall_ns = std::max(worker.longest_stall_ns, lasted_ns);
      events.push_back({w, false, lasted_ns});
    }
  }
  return events;
}

std::size_t WorkerLiveness::stalled_count() const {
  return static_cast<std::size_t>(std::count_if(
      workers_.begin(), workers_.end(), [](const Worker& worker) { return worker.stalled; }));
}

}  // namespace braid::engine
