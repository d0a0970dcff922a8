#include "engine/protocol_commands.hpp"

#include "common/clock.hpp"
#include "control/control_plane.hpp"
#include "engine/engine.hpp"
#include "engine/protocol_loop.hpp"
#include "log/async_log.hpp"

namespace braid::engine {
namespace {

double ms(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

void show_lateness(const Engine& engine, const ProtocolLoop& loop, control::Output& out) {
  const std::uint64_t now = monotonic_ns();
  const DeadlineLag& lag = engine.lag();
  out.value("protocol_loop_iterations", loop.iterations());
  out.value("protocol_jobs_run", loop.jobs_run());
  out.value("protocol_job_budget_hits", loop.job_budget_hits());
  const DeadlineLag::Stats period = lag.loop(now);
  out.value("protocol_loop_period_last_ms", ms(period.last_ns));
  out.value("protocol_loop_period_worst_minute_ms", ms(period.worst_last_minute_ns));
  out.value("protocol_loop_period_worst_ms", ms(period.worst_ns));
  out.value("deadline_slack_ms", ms(lag.slack_ns()));
  // The log's queue (log/async_log.hpp): lines never block the thread that writes them.
  if (const log::AsyncLog* async_log = log::AsyncLog::installed()) {
    const log::AsyncLogCounters counters = async_log->counters();
    out.value("log_lines", counters.lines);
    out.value("log_lines_dropped", counters.dropped_lines);
    out.value("log_queued_bytes", counters.queued_bytes);
  }
  control::Table& table = out.table(
      "deadlines", {"deadline", "served", "late", "last_ms", "worst_minute_ms", "worst_ms"});
  for (std::size_t k = 0; k < kDeadlineKinds; ++k) {
    const DeadlineLag::Stats stats = lag.stats(static_cast<DeadlineKind>(k), now);
    table.row({std::string(kDeadlineKindNames[k]), stats.served, stats.late, ms(stats.last_ns),
               ms(stats.worst_last_minute_ns), ms(stats.worst_ns)});
  }
  // A job is never cut short: how long each kind took is how long deadlines waited behind it.
  control::Table& jobs =
      out.table("jobs", {"job", "runs", "last_ms", "worst_minute_ms", "worst_ms"});
  for (const JobDurations::Row& row : loop.job_durations().rows(now)) {
    jobs.row({row.kind, row.runs, ms(row.last_ns), ms(row.worst_last_minute_ns), ms(row.worst_ns)});
  }
  // Reads that may block on the kernel run on a helper thread, never on the loop: how long they
  // took is how stale the health counters (or how slow `show port xstats`) were, not lateness.
  control::Table& reads =
      out.table("driver_reads", {"read", "runs", "last_ms", "worst_minute_ms", "worst_ms"});
  for (const JobDurations::Row& row : engine.slow_reads().durations(now)) {
    reads.row(
        {row.kind, row.runs, ms(row.last_ns), ms(row.worst_last_minute_ns), ms(row.worst_ns)});
  }
}

}  // namespace

void register_protocol_commands(control::ControlPlane& control, const Engine& engine,
                                const ProtocolLoop& loop) {
  control.add_status([&engine, &loop](control::Output& out) { show_lateness(engine, loop, out); });
  control.telemetry().add_command("/braid/control",
                                  "control socket, metrics, and the protocol loop's lateness",
                                  control.commands(), "show control");
  control.metrics().add_collector([&engine, &loop](control::MetricWriter& w) {
    using control::MetricType;
    const std::uint64_t now = monotonic_ns();
    const DeadlineLag& lag = engine.lag();
    w.family("braid_protocol_deadline_lateness_seconds",
             "how late the protocol loop served a deadline, worst over the window (minute, "
             "start)",
             MetricType::kGauge);
    for (std::size_t k = 0; k < kDeadlineKinds; ++k) {
      const DeadlineLag::Stats stats = lag.stats(static_cast<DeadlineKind>(k), now);
      const std::string kind(kDeadlineKindNames[k]);
      w.sample({{"deadline", kind}, {"window", "minute"}},
               static_cast<double>(stats.worst_last_minute_ns) / 1e9);
      w.sample({{"deadline", kind}, {"window", "start"}},
               static_cast<double>(stats.worst_ns) / 1e9);
    }
    w.family("braid_protocol_deadlines_total", "deadlines the protocol loop served",
             MetricType::kCounter);
    for (std::size_t k = 0; k < kDeadlineKinds; ++k) {
      w.sample({{"deadline", std::string(kDeadlineKindNames[k])}},
               lag.stats(static_cast<DeadlineKind>(k), now).served);
    }
    w.family("braid_protocol_deadlines_late_total",
             "deadlines served later than control.deadline_slack_ms", MetricType::kCounter);
    for (std::size_t k = 0; k < kDeadlineKinds; ++k) {
      w.sample({{"deadline", std::string(kDeadlineKindNames[k])}},
               lag.stats(static_cast<DeadlineKind>(k), now).late);
    }
    const DeadlineLag::Stats period = lag.loop(now);
    w.family("braid_protocol_loop_period_seconds",
             "the longest gap between two protocol loop iterations, over the window",
             MetricType::kGauge);
    w.sample({{"window", "minute"}}, static_cast<double>(period.worst_last_minute_ns) / 1e9);
    w.sample({{"window", "start"}}, static_cast<double>(period.worst_ns) / 1e9);
    w.family("braid_protocol_jobs_total",
             "management jobs (commands, renders) the protocol loop ran", MetricType::kCounter);
    w.sample({}, loop.jobs_run());
    w.family("braid_protocol_job_duration_seconds",
             "how long a kind of management job took on the protocol loop, the longest over the "
             "window (minute, start)",
             MetricType::kGauge);
    for (const JobDurations::Row& row : loop.job_durations().rows(now)) {
      w.sample({{"job", row.kind}, {"window", "minute"}},
               static_cast<double>(row.worst_last_minute_ns) / 1e9);
      w.sample({{"job", row.kind}, {"window", "start"}}, static_cast<double>(row.worst_ns) / 1e9);
    }
    if (const log::AsyncLog* async_log = log::AsyncLog::installed()) {
      w.family("braid_log_lines_dropped_total",
               "log lines dropped because their reader (terminal, journald) was too slow to take "
               "them; the thread that logged never waits",
               MetricType::kCounter);
      w.sample({}, async_log->counters().dropped_lines);
    }
  });
}

}  // namespace braid::engine
