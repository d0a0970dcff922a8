// How long each kind of management job took (on the protocol loop: a command, one endpoint's
// render, each periodic job by name; on the SlowReads helper: a driver read). A job is never cut
// short, so on the loop its duration is how long the deadlines waited behind it. Not
// thread-safe: one thread uses it (the loop), or its owner's lock guards it (SlowReads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/worst_window.hpp"

namespace braid {

class JobDurations {
 public:
  struct Row {
    std::string kind;
    std::uint64_t runs = 0;
    std::uint64_t last_ns = 0;
    std::uint64_t worst_last_minute_ns = 0;
    std::uint64_t worst_ns = 0;
  };

  void record(const std::string& kind, std::uint64_t duration_ns, std::uint64_t now_ns) {
    Series* series = nullptr;
    for (Series& known : series_) {
      if (known.row.kind == kind) series = &known;
    }
    if (series == nullptr) {
      series = &series_.emplace_back();
      series->row.kind = kind;
    }
    ++series->row.runs;
    series->row.last_ns = duration_ns;
    if (duration_ns > series->row.worst_ns) series->row.worst_ns = duration_ns;
    series->window.add(now_ns, duration_ns);
  }
  // In the order the kinds first ran.
  std::vector<Row> rows(std::uint64_t now_ns) const {
    std::vector<Row> rows;
    for (const Series& series : series_) {
      rows.push_back(series.row);
      rows.back().worst_last_minute_ns = series.window.worst(now_ns);
    }
    return rows;
  }

 private:
  struct Series {
    Row row;  // worst_last_minute_ns: from the window
    WorstWindow window;
  };
  std::vector<Series> series_;
};

}  // namespace braid
