#include "common/seqlock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace braid {
namespace {

// Three fields a reader must see from one publication: a queue depth, the table generation it
// was measured under, and the time (issue 33 item 8: a new generation with an old depth let a
// held move go while its packets still sat in the old queue).
struct Measurement {
  std::uint64_t depth = 0;
  std::uint64_t generation = 0;
  std::uint64_t time = 0;
};

TEST(SeqLock, AReaderNeverPairsFieldsOfTwoPublications) {
  SeqLock<Measurement> published;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (std::uint64_t i = 1; i <= 2'000'000; ++i)
      published.store({i * 7, i, ~i});
    done.store(true);
  });
  std::uint64_t consistent = 0;
  std::uint64_t mixed = 0;
  std::uint64_t last_generation = 0;
  while (!done.load()) {
    const std::optional<Measurement> m = published.load();
    if (!m) continue;
    if (m->generation == 0) continue;  // nothing published yet
    if (m->depth != m->generation * 7 || m->time != ~m->generation) ++mixed;
    EXPECT_GE(m->generation, last_generation) << "went back in time";
    last_generation = m->generation;
    ++consistent;
  }
  writer.join();
  EXPECT_EQ(mixed, 0u);
  EXPECT_GT(consistent, 0u);
  const std::optional<Measurement> last = published.load();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->generation, 2'000'000u);
  EXPECT_EQ(last->depth, 14'000'000u);
}

TEST(SeqLock, StartsAtTheValueOfItsType) {
  const SeqLock<Measurement> published;
  const std::optional<Measurement> m = published.load();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->generation, 0u);
}

}  // namespace
}  // namespace braid
