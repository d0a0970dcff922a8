// The workers' per-bucket packet counts (lib/bond/bucket_activity.hpp) folded into one 64-bit
// running total per bucket. Each worker's count is 32 bits and wraps (after 4.3 G packets in a
// bucket); differencing a *sum* of wrapping counts makes one worker's wrap look like 2^64 - 2^32
// packets in one period (a member then reads as overloaded and is emptied). So each worker's
// count is differenced against that worker's own previous reading, modulo 2^32, and only the
// differences are added. Whether a worker's count moved also says whether its stamp is fresh.
// Pure.
#pragma once

#include <cstdint>
#include <vector>

namespace braid::sched {

class ActivityCounts {
 public:
  explicit ActivityCounts(std::uint32_t buckets) : totals_(buckets, 0) {}

  // Folds in worker `worker`'s count for `bucket`; true when it moved since that worker's
  // previous reading.
  bool observe(std::size_t worker, std::uint32_t bucket, std::uint32_t count) {
    if (worker >= last_.size())
      last_.resize(worker + 1, std::vector<std::uint32_t>(totals_.size(), 0));
    std::uint32_t& last = last_[worker][bucket];
    const std::uint32_t delta = count - last;  // modulo 2^32: a wrap is a small step
    last = count;
    totals_[bucket] += delta;
    return delta != 0;
  }
  std::uint64_t total(std::uint32_t bucket) const { return totals_[bucket]; }

 private:
  std::vector<std::uint64_t> totals_;
  std::vector<std::vector<std::uint32_t>> last_;  // by worker, by bucket
};

}  // namespace braid::sched
