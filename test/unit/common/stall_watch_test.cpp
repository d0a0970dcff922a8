#include "common/stall_watch.hpp"

#include <gtest/gtest.h>

namespace braid {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

TEST(StallWatch, AThreadThatMovesIsNeverStalled) {
  StallWatch watch(3 * kSecond);
  const std::size_t loop = watch.add("protocol loop");
  for (std::uint64_t t = 0; t < 20; ++t) {
    watch.observe(loop, t * 7, t * kSecond);
    EXPECT_FALSE(watch.is_stalled(loop, t * kSecond));
    EXPECT_EQ(watch.still_for_ns(loop, t * kSecond), 0u);
  }
}

TEST(StallWatch, AThreadThatStopsIsStalledOnlyPastTheLimit) {
  StallWatch watch(3 * kSecond);
  const std::size_t loop = watch.add("protocol loop");
  const std::size_t worker = watch.add("worker lcore 1");
  watch.observe(loop, 10, 0);
  watch.observe(worker, 5, 0);
  watch.observe(loop, 11, 3 * kSecond);
  watch.observe(worker, 5, 3 * kSecond);
  EXPECT_FALSE(watch.is_stalled(worker, 3 * kSecond));  // at the limit, not past it
  watch.observe(loop, 12, 3 * kSecond + 1);
  watch.observe(worker, 5, 3 * kSecond + 1);
  EXPECT_TRUE(watch.is_stalled(worker, 3 * kSecond + 1));
  EXPECT_EQ(watch.still_for_ns(worker, 3 * kSecond + 1), 3 * kSecond + 1);
  EXPECT_FALSE(watch.is_stalled(loop, 3 * kSecond + 1));
  // It moves again: healthy at once.
  watch.observe(worker, 6, 4 * kSecond);
  EXPECT_FALSE(watch.is_stalled(worker, 4 * kSecond));
  EXPECT_EQ(watch.threads()[worker].name, "worker lcore 1");
}

TEST(StallWatch, TheFirstObservationStartsTheClock) {
  StallWatch watch(kSecond);
  const std::size_t worker = watch.add("worker lcore 2");
  EXPECT_FALSE(watch.is_stalled(worker, 100 * kSecond));  // never observed: nothing known
  watch.observe(worker, 0, 100 * kSecond);
  EXPECT_FALSE(watch.is_stalled(worker, 100 * kSecond));
  watch.observe(worker, 0, 102 * kSecond);
  EXPECT_TRUE(watch.is_stalled(worker, 102 * kSecond));
}

}  // namespace
}  // namespace braid
