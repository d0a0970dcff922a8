#include "common/token_bucket.hpp"

#include <gtest/gtest.h>

namespace braid {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

TEST(TokenBucket, BurstThenRate) {
  TokenBucket bucket(64, kSecond, 32);
  int taken = 0;
  for (int i = 0; i < 100; ++i)
    taken += bucket.take(1) ? 1 : 0;
  EXPECT_EQ(taken, 32);  // the burst, then nothing at the same instant
  taken = 0;
  // One second later: 64 more earned, but at most the burst is saved up.
  for (int i = 0; i < 100; ++i)
    taken += bucket.take(1 + kSecond) ? 1 : 0;
  EXPECT_EQ(taken, 32);
}

TEST(TokenBucket, SteadyRateOverAFlood) {
  TokenBucket bucket(64, kSecond, 32);
  std::uint64_t taken = 0;
  // A flood of one frame per microsecond for 10 s: 32 + 64 per second get through.
  for (std::uint64_t t = 1; t <= 10 * kSecond; t += 1000)
    taken += bucket.take(t) ? 1 : 0;
  EXPECT_GE(taken, 32u + 640u - 2);
  EXPECT_LE(taken, 32u + 640u + 1);
}

TEST(TokenBucket, FractionalRatesCarryOver) {
  TokenBucket bucket(3, kSecond, 1);  // one every 333 ms
  EXPECT_TRUE(bucket.take(1));
  std::uint64_t taken = 0;
  // Tokens at 1/3 s, 2/3 s, ... up to the last step at 2.99 s: 8, none lost to rounding.
  for (std::uint64_t t = 1; t <= 3 * kSecond; t += kSecond / 100)
    taken += bucket.take(t) ? 1 : 0;
  EXPECT_EQ(taken, 8u);
}

}  // namespace
}  // namespace braid
