#include "health/pfc_storm.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "health/signal.hpp"

namespace braid::health {
namespace {

constexpr std::uint64_t kMs = kNsPerMs;
constexpr std::uint64_t kPeriodMs = 10;  // the scheduler's sampling period
constexpr std::uint8_t kRoce = 3;

// One priority's queue on a 1 ms clock: while the peer pauses it, a pause frame arrives every
// millisecond and nothing is sent; otherwise the queue sends one packet a millisecond. Its depth
// stays what the test sets (the queue refills as fast as it drains). Sampled every kPeriodMs.
class PausedQueue {
 public:
  explicit PausedQueue(PfcStormSettings settings = {}, std::uint8_t priority = kRoce)
      : detector_(settings, priority) {
    sample();  // the baseline at t = 0
  }

  // Runs until `until_ms` with the peer pausing or not, sampling every kPeriodMs.
  void run(std::uint64_t until_ms, bool pausing) {
    while (now_ms_ < until_ms) {
      ++now_ms_;
      if (pausing) {
        ++pause_frames_;
      } else {
        ++tx_packets_;
      }
      if (now_ms_ % kPeriodMs == 0) sample();
    }
  }

  void sample() {
    const std::optional<PfcStormEvent> event =
        detector_.sample(now_ms_ * kMs, {pause_frames_, std::nullopt, tx_packets_, depth_});
    if (event) events_.push_back(*event);
  }

  // The times, in ms, of the events of one kind.
  std::vector<std::uint64_t> times(PfcStormEventKind kind) const {
    std::vector<std::uint64_t> out;
    for (const PfcStormEvent& event : events_) {
      if (event.kind == kind) out.push_back(event.at_ns / kMs);
    }
    return out;
  }
  std::vector<std::uint64_t> began() const { return times(PfcStormEventKind::storm_began); }
  std::vector<std::uint64_t> ended() const { return times(PfcStormEventKind::storm_ended); }

  PfcStormDetector detector_;
  std::optional<std::uint32_t> depth_ = 256;
  std::uint64_t now_ms_ = 0;
  std::uint64_t pause_frames_ = 0;
  std::uint64_t tx_packets_ = 0;
  std::vector<PfcStormEvent> events_;
};

void expect_event(const PfcStormEvent& event, PfcStormEventKind kind, std::uint64_t at_ms,
                  std::uint64_t pause_frames, std::uint64_t duration_ms,
                  const std::string& evidence) {
  EXPECT_EQ(event.kind, kind);
  EXPECT_EQ(event.priority, kRoce);
  EXPECT_EQ(event.at_ns, at_ms * kMs);
  EXPECT_EQ(event.pause_frames, pause_frames);
  EXPECT_EQ(event.duration_ns, duration_ms * kMs);
  EXPECT_EQ(event.evidence, evidence);
}

TEST(PfcStorm, TheDefaultsAreValidAndOutOfRangeSettingsSaySo) {
  EXPECT_EQ(settings_error(PfcStormSettings{}), "");
  EXPECT_EQ(PfcStormSettings{}.storm_detect_ms, 100u);
  EXPECT_EQ(PfcStormSettings{}.storm_restore_ms, 200u);
  EXPECT_EQ(settings_error(PfcStormSettings{5, 200}),
            "pfc watchdog: storm_detect_ms (5) must be between 10 and 5000");
  EXPECT_EQ(settings_error(PfcStormSettings{6000, 200}),
            "pfc watchdog: storm_detect_ms (6000) must be between 10 and 5000");
  EXPECT_EQ(settings_error(PfcStormSettings{100, 0}),
            "pfc watchdog: storm_restore_ms (0) must be between 10 and 60000");
  EXPECT_EQ(settings_error(PfcStormSettings{100, 60001}),
            "pfc watchdog: storm_restore_ms (60001) must be between 10 and 60000");
  EXPECT_EQ(settings_error(PfcStormSettings{10, 60000}), "");
}

// A pause that never ends, starting at every offset inside a sample period: declared between
// storm_detect_ms and storm_detect_ms + one sample after it began (storm_detect_ms rounded up to
// whole samples when it falls between two).
TEST(PfcStorm, APauseThatNeverEndsIsDeclaredWithinDetectPlusOneSample) {
  for (std::uint32_t detect_ms : {100u, 55u, 10u}) {
    for (std::uint64_t offset = 0; offset < kPeriodMs; ++offset) {
      PausedQueue queue({detect_ms, 200});
      const std::uint64_t pause_ms = 1000 + offset;
      queue.run(pause_ms, false);
      queue.run(pause_ms + 2000, true);
      ASSERT_EQ(queue.began().size(), 1u) << detect_ms << " " << offset;
      const std::uint64_t after = queue.began().at(0) - pause_ms;
      EXPECT_GE(after, detect_ms) << offset;
      // Samples come every kPeriodMs: a detect time between two is rounded up to the next.
      const std::uint64_t detect_samples_ms = (detect_ms + kPeriodMs - 1) / kPeriodMs * kPeriodMs;
      EXPECT_LE(after, detect_samples_ms + kPeriodMs) << detect_ms << " " << offset;
      EXPECT_TRUE(queue.ended().empty());
      EXPECT_TRUE(queue.detector_.storming());
    }
  }
}

TEST(PfcStorm, PausesTheQueueDrainsThroughAreOrdinaryPfc) {
  // Paused 9 ms of every 10 for 10 s: it still sends a packet or so each period.
  PausedQueue queue;
  for (std::uint64_t ms = 0; ms < 10'000; ms += 10) {
    queue.run(ms + 9, true);
    queue.run(ms + 10, false);
  }
  EXPECT_GT(queue.pause_frames_, 8000u);
  EXPECT_TRUE(queue.events_.empty());
  // Paused 95 ms of every 100: stuck for 90 ms at most, then it drains.
  for (std::uint64_t ms = 10'000; ms < 20'000; ms += 100) {
    queue.run(ms + 95, true);
    queue.run(ms + 100, false);
  }
  EXPECT_TRUE(queue.events_.empty());
}

TEST(PfcStorm, APauseBurstShorterThanDetectIsNoStorm) {
  PausedQueue queue;
  queue.run(1000, false);
  queue.run(1090, true);  // 90 ms
  queue.run(3000, false);
  EXPECT_TRUE(queue.events_.empty());
  queue.run(3100, true);  // 100 ms: that one is
  EXPECT_EQ(queue.began(), std::vector<std::uint64_t>{3100});
}

TEST(PfcStorm, AnEmptyQueueUnderPauseIsNoStorm) {
  PausedQueue queue;
  queue.depth_ = 0;
  queue.run(100, false);
  queue.run(5000, true);
  EXPECT_TRUE(queue.events_.empty());
}

TEST(PfcStorm, WithTheDepthUnknownTxProgressAloneDecides) {
  PausedQueue queue;
  queue.depth_ = std::nullopt;
  queue.run(100, false);
  queue.run(500, true);
  ASSERT_EQ(queue.began(), std::vector<std::uint64_t>{200});
  EXPECT_EQ(queue.events_[0].evidence,
            "priority 3: 100 pause frames in 100 ms while its TX queue sent nothing (queue depth "
            "unknown)");
}

TEST(PfcStorm, TheStormEndsRestoreAfterThePausesStop) {
  for (std::uint64_t offset = 0; offset < kPeriodMs; ++offset) {
    PausedQueue queue;
    queue.run(100, false);
    queue.run(1000, true);
    ASSERT_EQ(queue.began(), std::vector<std::uint64_t>{200});
    const std::uint64_t stop_ms = 1500 + offset;
    queue.run(stop_ms, true);
    queue.run(stop_ms + 1000, false);
    ASSERT_EQ(queue.ended().size(), 1u) << offset;
    const std::uint64_t after = queue.ended().at(0) - stop_ms;
    EXPECT_GE(after, 200u) << offset;
    EXPECT_LE(after, 200u + kPeriodMs) << offset;
    EXPECT_FALSE(queue.detector_.storming());
  }
}

TEST(PfcStorm, TheEndIsReportedWithItsEvidence) {
  PausedQueue queue;
  queue.run(100, false);
  queue.run(1500, true);
  queue.run(2000, false);
  ASSERT_EQ(queue.events_.size(), 2u);
  expect_event(queue.events_[0], PfcStormEventKind::storm_began, 200, 100, 100,
               "priority 3: 100 pause frames in 100 ms while its TX queue sent nothing (256 "
               "descriptors waiting)");
  expect_event(queue.events_[1], PfcStormEventKind::storm_ended, 1700, 1300, 1500,
               "priority 3: no pause frames for 200 ms; the storm lasted 1500 ms with 1300 more "
               "pause frames");
  EXPECT_STREQ(to_string(PfcStormEventKind::storm_began), "storm_began");
  EXPECT_STREQ(to_string(PfcStormEventKind::storm_ended), "storm_ended");
}

TEST(PfcStorm, AStormThatRestartsWithinTheRestoreTimeStaysAStorm) {
  PausedQueue queue;
  queue.run(100, false);
  queue.run(1000, true);
  queue.run(1150, false);  // 150 ms quiet: less than the 200 ms restore time
  queue.run(1500, true);
  queue.run(1690, false);  // 190 ms
  queue.run(1800, true);
  EXPECT_EQ(queue.began(), std::vector<std::uint64_t>{200});
  EXPECT_TRUE(queue.ended().empty());
  queue.run(3000, false);
  EXPECT_EQ(queue.ended(), std::vector<std::uint64_t>{2000});
}

TEST(PfcStorm, AFlappingStormIsDeclaredAfreshEachTime) {
  PausedQueue queue;
  queue.run(100, false);
  for (std::uint64_t start = 100; start < 3100; start += 600) {
    queue.run(start + 300, true);   // 300 ms of storm
    queue.run(start + 600, false);  // 300 ms quiet: longer than the restore time
  }
  EXPECT_EQ(queue.began(), (std::vector<std::uint64_t>{200, 800, 1400, 2000, 2600}));
  EXPECT_EQ(queue.ended(), (std::vector<std::uint64_t>{600, 1200, 1800, 2400, 3000}));
  EXPECT_EQ(queue.detector_.storms(), 5u);
}

TEST(PfcStorm, ACounterThatGoesBackIsANewBaseline) {
  PausedQueue queue;
  queue.run(100, false);
  queue.run(190, true);     // stuck for 90 ms
  queue.pause_frames_ = 0;  // the NIC's counters were cleared
  queue.tx_packets_ = 0;
  queue.run(290, true);                // the sample at 200 reads the reset: a baseline
  EXPECT_TRUE(queue.events_.empty());  // the stuck time before it does not count
  queue.run(300, true);
  EXPECT_EQ(queue.began(), std::vector<std::uint64_t>{300});  // 100 ms after that sample
}

TEST(PfcStorm, ACounterThatWrapsOrFlickersNeverDeclares) {
  PfcStormDetector detector({}, kRoce);
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  EXPECT_FALSE(detector.sample(0, {top - 5, std::nullopt, 7, 100}));
  // Pause counters alternately rising and reading back lower (a source that flickers), the queue
  // stuck: every other interval is a new baseline, so it is never stuck for 100 ms.
  for (std::uint64_t t = 1; t <= 200; ++t) {
    const std::uint64_t pauses = t % 2 == 0 ? top - 5 : top;
    EXPECT_FALSE(detector.sample(t * 10 * kMs, {pauses, std::nullopt, 7, 100})) << t;
  }
  // The TX counter going back while pauses rise is not "no progress" either.
  std::uint64_t pauses = 0;
  for (std::uint64_t t = 201; t <= 400; ++t) {
    pauses += 10;
    const std::uint64_t tx = t % 2 == 0 ? 7 : 3;
    EXPECT_FALSE(detector.sample(t * 10 * kMs, {pauses, std::nullopt, tx, 100})) << t;
  }
  EXPECT_FALSE(detector.storming());
}

TEST(PfcStorm, ThePauseDurationCounterAloneShowsAPause) {
  // Some NICs count time paused and not frames (or a frame's pause outlasts the sample).
  PfcStormDetector detector({}, kRoce);
  std::uint64_t paused_us = 0;
  std::optional<PfcStormEvent> event;
  for (std::uint64_t t = 0; t <= 10 && !event; ++t) {
    event = detector.sample(t * 10 * kMs, {5, paused_us, 40, 512});
    paused_us += 10'000;
  }
  ASSERT_TRUE(event);
  EXPECT_EQ(event->at_ns, 100 * kMs);
  EXPECT_EQ(event->evidence,
            "priority 3: 0 pause frames (100 ms paused) in 100 ms while its TX queue sent nothing "
            "(512 descriptors waiting)");
}

// A queue with nothing to send for the first 6 ms of an interval, then paused without end: with
// the pause duration counted, the stuck time starts when the pause did (4 ms before the sample),
// so the storm is declared storm_detect_ms after the pause began, not after the interval began.
// Without the duration it starts with the interval (the frames say only that pauses came in it).
TEST(PfcStorm, ThePauseDurationTellsWhenInTheFirstIntervalThePauseBegan) {
  for (const bool durations : {true, false}) {
    PfcStormDetector detector({}, kRoce);
    EXPECT_FALSE(detector.sample(
        0, {0, durations ? std::optional<std::uint64_t>(0) : std::nullopt, 100, 64}));
    std::optional<PfcStormEvent> event;
    std::uint64_t t_ms = 10;
    for (; t_ms <= 200 && !event; t_ms += 10) {
      const std::uint64_t paused_us = (t_ms - 6) * 1000;  // the pause began at 6 ms
      event = detector.sample(t_ms * kMs,
                              {t_ms, durations ? std::optional(paused_us) : std::nullopt, 100, 64});
    }
    ASSERT_TRUE(event);
    EXPECT_EQ(event->at_ns, (durations ? 110 : 100) * kMs) << "durations " << durations;
    EXPECT_EQ(event->duration_ns, (durations ? 104 : 100) * kMs);
  }
}

TEST(PfcStorm, OneLongSampleGapStuckAllThroughIsAStorm) {
  PfcStormDetector detector({}, kRoce);
  EXPECT_FALSE(detector.sample(1000 * kMs, {0, std::nullopt, 100, 64}));
  const std::optional<PfcStormEvent> event =
      detector.sample(1250 * kMs, {900, std::nullopt, 100, 64});
  ASSERT_TRUE(event);
  EXPECT_EQ(event->duration_ns, 250 * kMs);
}

TEST(PfcStorm, ASampleWhoseTimeDoesNotAdvanceIsIgnored) {
  PfcStormDetector detector({}, kRoce);
  EXPECT_FALSE(detector.sample(100 * kMs, {0, std::nullopt, 0, 64}));
  for (std::uint64_t t = 11; t <= 19; ++t)
    EXPECT_FALSE(detector.sample(t * 10 * kMs, {t, std::nullopt, 0, 64}));
  EXPECT_FALSE(detector.sample(190 * kMs, {500, std::nullopt, 0, 64}));  // same time again
  EXPECT_FALSE(detector.sample(50 * kMs, {600, std::nullopt, 0, 64}));   // back in time
  EXPECT_TRUE(detector.stuck_since_ns());
  EXPECT_EQ(*detector.stuck_since_ns(), 100 * kMs);
  EXPECT_TRUE(detector.sample(200 * kMs, {700, std::nullopt, 0, 64}));
}

TEST(PfcStorm, EachPriorityIsJudgedAlone) {
  PfcStormWatchdog watchdog({});
  std::uint64_t pauses3 = 0, tx3 = 0, pauses0 = 0, tx0 = 0;
  std::vector<PfcStormEvent> events;
  for (std::uint64_t t = 0; t <= 100; ++t) {
    // Priority 3: paused from 200 ms on, stuck. Priority 0: paused now and then, always sending.
    if (t > 20) {
      pauses3 += 10;
    } else {
      tx3 += 10;
    }
    pauses0 += t % 3 == 0 ? 4 : 0;
    tx0 += 10;
    for (auto [priority, sample] :
         {std::pair{std::uint8_t{3}, PfcQueueSample{pauses3, std::nullopt, tx3, 300}},
          std::pair{std::uint8_t{0}, PfcQueueSample{pauses0, std::nullopt, tx0, 300}}}) {
      if (auto event = watchdog.sample(t * 10 * kMs, priority, sample)) events.push_back(*event);
    }
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].priority, 3);
  EXPECT_EQ(events[0].at_ns, 300 * kMs);
  EXPECT_TRUE(watchdog.storming(3));
  EXPECT_FALSE(watchdog.storming(0));
  EXPECT_EQ(watchdog.storming_mask(), 1U << 3);
  EXPECT_EQ(watchdog.detector(3).storm_began_ns(), 300 * kMs);
  EXPECT_THROW(watchdog.sample(0, 8, {}), std::out_of_range);
}

}  // namespace
}  // namespace braid::health
