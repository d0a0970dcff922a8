// Captures what braid logs through rte_log while it lives (it replaces the log stream, so the
// lines do not reach braid's log queue).
#pragma once

#include <rte_log.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace braid::test {

class LogCapture {
 public:
  LogCapture() : previous_(rte_log_get_stream()), stream_(open_memstream(&buffer_, &size_)) {
    rte_openlog_stream(stream_);
  }
  ~LogCapture() {
    rte_openlog_stream(previous_);
    std::fclose(stream_);
    std::free(buffer_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() {
    std::fflush(stream_);
    return std::string(buffer_, size_);
  }

 private:
  FILE* previous_;
  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  FILE* stream_;
};

}  // namespace braid::test
