#include "log/async_log.hpp"

#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <rte_log.h>
#include <sched.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <functional>
#include <utility>

namespace braid::log {
namespace {

std::atomic<const AsyncLog*> installed_log{nullptr};
constexpr int kPollMs = 100;  // how often a blocked writer asks whether braid is exiting

// The whole buffer, a pipe's atomic size at a time, each write only once poll() says it fits, so
// that a reader that stopped reading holds this thread at most until `give_up` (when set).
bool write_all(int fd, const char* data, std::size_t size, const std::function<bool()>& give_up) {
  while (size > 0) {
    pollfd ready{fd, POLLOUT, 0};
    const int polled = ::poll(&ready, 1, kPollMs);
    if (polled < 0 && errno != EINTR) return false;
    if (polled <= 0) {
      if (give_up()) return false;
      continue;
    }
    const ssize_t written = ::write(fd, data, std::min<std::size_t>(size, PIPE_BUF));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

}  // namespace

AsyncLog::AsyncLog(bool syslog, std::size_t capacity_bytes)
    : syslog_(syslog), capacity_bytes_(capacity_bytes) {
  cookie_io_functions_t functions{};
  functions.write = &AsyncLog::on_write;
  stream_ = fopencookie(this, "w", functions);
  if (stream_ == nullptr) return;  // DPDK's default stream stays
  // Line-buffered: rte_vlog fflush()es after each message anyway.
  std::setvbuf(stream_, nullptr, _IOLBF, 4096);
  writer_ = std::thread([this] { run(); });
  rte_openlog_stream(stream_);
  installed_log.store(this, std::memory_order_release);
}

AsyncLog::~AsyncLog() {
  if (stream_ == nullptr) return;
  installed_log.store(nullptr, std::memory_order_release);
  rte_openlog_stream(nullptr);  // DPDK's default again
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  writer_.join();
  std::fclose(stream_);
}

const AsyncLog* AsyncLog::installed() {
  return installed_log.load(std::memory_order_acquire);
}

ssize_t AsyncLog::on_write(void* self, const char* buffer, std::size_t size) {
  // rte_log's level of the message being written (this thread's), as DPDK's default stream
  // passes it to syslog (its levels are syslog's plus one).
  const int level = rte_log_cur_msg_loglevel();
  auto* log = static_cast<AsyncLog*>(self);
  log->push({Sink::kStderr, log->syslog_ && level > 0 ? level - 1 : -1, std::string(buffer, size)});
  return static_cast<ssize_t>(size);  // taken, whether queued or dropped: never an error
}

void AsyncLog::print(std::string_view text) {
  push({Sink::kStdout, -1, std::string(text)});
}

void AsyncLog::push(Line line) {
  {
    const std::lock_guard lock(mutex_);
    if (queued_bytes_ + line.text.size() > capacity_bytes_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    queued_bytes_ += line.text.size();
    queue_.push_back(std::move(line));
  }
  lines_.fetch_add(1, std::memory_order_relaxed);
  wake_.notify_one();
}

AsyncLogCounters AsyncLog::counters() const {
  AsyncLogCounters counters;
  counters.lines = lines_.load(std::memory_order_relaxed);
  counters.dropped_lines = dropped_.load(std::memory_order_relaxed);
  const std::lock_guard lock(mutex_);
  counters.queued_bytes = queued_bytes_;
  return counters;
}

void AsyncLog::run() {
  // Below everything else on its CPU (it inherits the main lcore's, where the protocol loop
  // runs): it writes when nothing with a deadline wants the CPU.
  const sched_param idle{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(mutex_);
  Clock::time_point give_up_at = Clock::time_point::max();
  // Exiting: what is queued gets a second at most (a reader that never reads again must not
  // hold the exit).
  auto give_up = [&] {
    const std::lock_guard relock(mutex_);
    if (stopping_ && give_up_at == Clock::time_point::max())
      give_up_at = Clock::now() + std::chrono::seconds(1);
    return Clock::now() > give_up_at;
  };
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, all written
    if (stopping_ && give_up_at == Clock::time_point::max())
      give_up_at = Clock::now() + std::chrono::seconds(1);
    if (Clock::now() > give_up_at) return;
    Line line = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= line.text.size();
    lock.unlock();
    // Blocking here blocks no one but this thread.
    const std::uint64_t dropped = dropped_.load(std::memory_order_relaxed);
    if (dropped != dropped_reported_) {
      char note[128];
      const int n = std::snprintf(note, sizeof note,
                                  "braid: %llu log lines dropped: their reader was too slow\n",
                                  static_cast<unsigned long long>(dropped - dropped_reported_));
      dropped_reported_ = dropped;
      if (n > 0) write_all(STDERR_FILENO, note, static_cast<std::size_t>(n), give_up);
    }
    write_all(line.sink == Sink::kStdout ? STDOUT_FILENO : STDERR_FILENO, line.text.data(),
              line.text.size(), give_up);
    if (line.syslog_priority >= 0)
      ::syslog(line.syslog_priority, "%.*s", static_cast<int>(line.text.size()), line.text.data());
    lock.lock();
  }
}

}  // namespace braid::log
