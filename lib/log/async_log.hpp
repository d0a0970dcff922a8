// rte_log that never blocks its caller (issue 33): DPDK 22.11's default stream does fwrite and
// fflush on stderr and a syslog() per line, so a terminal paused with Ctrl-S, an ssh session
// that stopped reading, or a backed-up journald blocks the next log line, on whichever thread
// writes it — the protocol loop, during an incident, when most lines are written. AsyncLog
// installs a stream (rte_openlog_stream) whose write only queues the line, and a thread of its
// own writes the queue to stderr and syslog, as DPDK's default stream would. The queue is
// bounded: a line that does not fit is dropped and counted, and the writer says how many were
// dropped once it catches up. braid's own stdout lines (the stats line) can take the same way.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace braid::log {

struct AsyncLogCounters {
  std::uint64_t lines = 0;          // queued
  std::uint64_t dropped_lines = 0;  // did not fit (the reader is too slow)
  std::uint64_t queued_bytes = 0;   // waiting for the writer now
};

class AsyncLog {
 public:
  static constexpr std::size_t kDefaultCapacityBytes = 1 << 20;

  // Installs itself as rte_log's stream (after rte_eal_init). `syslog`: also to syslog, with
  // each line's level, as DPDK's default stream does.
  explicit AsyncLog(bool syslog = true, std::size_t capacity_bytes = kDefaultCapacityBytes);
  // Writes what is queued (for at most a second: a reader that never reads again must not
  // hold the exit), puts DPDK's default stream back, stops the writer.
  ~AsyncLog();
  AsyncLog(const AsyncLog&) = delete;
  AsyncLog& operator=(const AsyncLog&) = delete;

  // A line of braid's own for stdout (the stats line), through the same queue.
  void print(std::string_view text);
  AsyncLogCounters counters() const;
  // The one installed now (nullptr: none), for the counters in show control and /metrics.
  static const AsyncLog* installed();

 private:
  enum class Sink : std::uint8_t { kStderr, kStdout };
  struct Line {
    Sink sink = Sink::kStderr;
    int syslog_priority = -1;  // -1: not for syslog
    std::string text;
  };

  static ssize_t on_write(void* self, const char* buffer, std::size_t size);
  void push(Line line);
  void run();

  const bool syslog_;
  const std::size_t capacity_bytes_;
  FILE* stream_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Line> queue_;
  std::size_t queued_bytes_ = 0;
  bool stopping_ = false;
  std::atomic<std::uint64_t> lines_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::uint64_t dropped_reported_ = 0;  // the writer's own
  std::thread writer_;
};

}  // namespace braid::log
