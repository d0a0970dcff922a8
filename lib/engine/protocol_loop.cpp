#include "engine/protocol_loop.hpp"

#include <poll.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/clock.hpp"
#include "log/log_types.hpp"

namespace braid::engine {

ProtocolLoop::ProtocolLoop(Engine& engine, JobQueue& jobs, ProtocolLoopSettings settings)
    : engine_(engine), jobs_(jobs), settings_(settings) {
  jobs_.set_protocol_waker(&engine_.waker());
}

void ProtocolLoop::request_stop() {
  stop_.store(true, std::memory_order_release);
  engine_.waker().notify();
}

void ProtocolLoop::run(std::uint64_t until_ns,
                       const std::function<std::uint64_t(std::uint64_t)>& tick) {
  if (settings_.rt_priority != 0) {
    sched_param param{};
    param.sched_priority = static_cast<int>(settings_.rt_priority);
    const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    note_ = rc == 0 ? "protocol loop: SCHED_FIFO priority " + std::to_string(settings_.rt_priority)
                    : "protocol loop: cannot run SCHED_FIFO priority " +
                          std::to_string(settings_.rt_priority) + " (" + std::strerror(rc) +
                          "; needs LimitRTPRIO in the unit, or CAP_SYS_NICE): it keeps the "
                          "process's policy";
    if (rc == 0) {
      BRAID_LOG_TO(kEngine, INFO, "%s\n", note_.c_str());
    } else {
      BRAID_LOG_TO(kEngine, WARNING, "%s\n", note_.c_str());
    }
  }
  DeadlineLag& lag = engine_.lag();
  while (!stop_requested()) {
    const std::uint64_t now = monotonic_ns();
    if (now >= until_ns) break;
    lag.record_iteration(now);
    iterations_.fetch_add(1, std::memory_order_relaxed);
    engine_.waker().drain();
    std::uint64_t next = std::min(engine_.poll_control(now), until_ns);
    if (tick) next = std::min(next, tick(now));
    run_jobs(now, next);
    // Jobs may have changed state (set ...): whatever they made due is served next iteration.
    if (!jobs_.pending()) sleep_until(monotonic_ns(), next);
  }
}

// One job per iteration whatever is due (so a loop kept busy still answers its console: a job
// is the most a client can delay a deadline by), more while no deadline is due, for at most the
// budget. A job already running is never interrupted.
void ProtocolLoop::run_jobs(std::uint64_t now_ns, std::uint64_t next_deadline_ns) {
  const std::uint64_t budget_end = now_ns + settings_.job_budget_ns;
  for (std::uint64_t at = now_ns, ran = 0;; at = monotonic_ns(), ++ran) {
    if (ran != 0 && (at >= next_deadline_ns || at >= budget_end)) {
      if (jobs_.pending()) job_budget_hits_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (!jobs_.run_one(&job_durations_)) return;
    jobs_run_.fetch_add(1, std::memory_order_relaxed);
  }
}

void ProtocolLoop::sleep_until(std::uint64_t now_ns, std::uint64_t deadline_ns) {
  if (deadline_ns <= now_ns) return;
  const std::uint64_t nap_ns = std::min(deadline_ns - now_ns, settings_.max_sleep_ns);
  std::array<pollfd, 2> fds{};
  nfds_t count = 0;
  fds[count++] = {engine_.waker().fd(), POLLIN, 0};
  if (engine_.kernel_links().fd() >= 0) fds[count++] = {engine_.kernel_links().fd(), POLLIN, 0};
  const timespec timeout{static_cast<time_t>(nap_ns / 1'000'000'000),
                         static_cast<long>(nap_ns % 1'000'000'000)};
  // EINTR (a signal) only ends the nap early.
  ::ppoll(fds.data(), count, &timeout, nullptr);
}

}  // namespace braid::engine
