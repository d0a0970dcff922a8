// A member's expected queueing delay for the next packet sent to it: the packets waiting in its
// transmit queue over the rate it drains them (the `latency` policy's input). The drain rate is
// what the member sent in a period that began and ended with packets queued: the link was busy
// all along, so what it sent is what it can send now (paused part of the time, slower, shared by
// other classes). Each such period is one sample, smoothed; the newest sample alone counts when
// it is slower (a pause that just began must not look like last minute's full speed). A queue
// that has never been seen busy is judged by what it sent last period, a lower bound on its rate,
// so its delay is not underestimated. Pure: no DPDK, time injected.
#pragma once

#include <cstdint>
#include <optional>

namespace braid::sched {

// The delay of a queue that sent nothing while packets waited: stalled (paused for good, link
// down without the bond knowing yet). Large enough that every other member looks better.
inline constexpr std::uint64_t kStalledDelayNs = 1'000'000'000;

class DelayEstimate {
 public:
  // `smoothing_permille`: weight of the newest busy sample in the rate average.
  explicit DelayEstimate(std::uint32_t smoothing_permille = 500)
      : smoothing_(smoothing_permille / 1000.0) {}

  // Once per period: the queue depth now (nullopt: unknown), packets the member sent since the
  // last update, and the time since then.
  void update(std::optional<std::uint32_t> depth, std::uint64_t sent, std::uint64_t elapsed_ns);

  // Expected wait of a packet queued now, in ns; nullopt while the depth is unknown.
  std::optional<std::uint64_t> delay_ns() const;
  // The measured drain rate, packets per ns; 0 until a busy period was seen.
  double drain_per_ns() const { return rate_per_ns_; }

 private:
  double smoothing_;
  std::optional<std::uint32_t> depth_;  // as of the last update
  double rate_per_ns_ = 0;              // smoothed over busy periods
  double last_rate_per_ns_ = 0;         // the newest period's, busy or not
  bool last_busy_ = false;
};

}  // namespace braid::sched
