#include "engine/tx_descriptors_in_use.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace braid::engine {
namespace {

// mlx5_tx_descriptor_status: offsets count from the oldest packet not yet completed.
struct Mlx5Queue {
  std::uint32_t ring;
  std::uint32_t in_use;
  int calls = 0;
  DescriptorState operator()(std::uint32_t offset) {
    ++calls;
    return offset < in_use ? DescriptorState::kInUse : DescriptorState::kFree;
  }
};

// ixgbe/i40e_dev_tx_descriptor_status: offsets count from the tail; the answer is the done bit
// of the next descriptor that reports completion (a multiple of rs_thresh), wrapping around the
// ring. The `in_use` slots just before the tail are not done; every other slot is.
struct IntelQueue {
  std::uint32_t ring;
  std::uint32_t in_use;
  std::uint32_t tail;
  std::uint32_t rs_thresh;
  int calls = 0;
  DescriptorState operator()(std::uint32_t offset) {
    ++calls;
    if (offset >= ring) return DescriptorState::kUnknown;  // -EINVAL
    std::uint32_t slot = (tail + offset + rs_thresh - 1) / rs_thresh * rs_thresh;
    while (slot >= ring)
      slot -= ring;
    const std::uint32_t behind_tail = (tail + ring - slot - 1) % ring;  // 0: the newest slot
    return behind_tail < in_use ? DescriptorState::kInUse : DescriptorState::kFree;
  }
};

TEST(TxDescriptorsInUse, Mlx5CountsFromTheOldestPacket) {
  for (std::uint32_t in_use = 0; in_use <= 1024; ++in_use) {
    Mlx5Queue queue{1024, in_use};
    EXPECT_EQ(tx_descriptors_in_use(queue, 1024), in_use) << "in use " << in_use;
    EXPECT_LE(queue.calls, 1 + 10);
  }
}

// mlx5 with its completions as 22.11 requests them: one every 32 packets. `sent` packets went
// through the queue, `pending` of the newest are still waiting for the wire; the elements the
// PMD still holds run from the packet after the last completion it was told of to the newest.
struct BatchedMlx5Queue {
  std::uint32_t sent;
  std::uint32_t pending;
  std::uint32_t batch = kMlx5Batch;
  static constexpr std::uint32_t kMlx5Batch = 32;
  DescriptorState operator()(std::uint32_t offset) const {
    const std::uint32_t wire = sent - pending;             // on the wire already
    const std::uint32_t completed = wire / batch * batch;  // completions reported
    return offset < sent - completed ? DescriptorState::kInUse : DescriptorState::kFree;
  }
};

// Issue 34 item 6: a queue that went quiet read up to 31 in use for ever.
TEST(TxDescriptorsInUse, Mlx5BatchedCompletionsNeverShowAQueueThatIsNotThere) {
  for (std::uint32_t sent = 1000; sent < 1064; ++sent) {
    EXPECT_EQ(tx_descriptors_in_use(BatchedMlx5Queue{sent, 0}, 1024), sent % 32)
        << "what a reader unaware of the batching saw";
    EXPECT_EQ(tx_descriptors_in_use(BatchedMlx5Queue{sent, 0}, 1024, 32), 0u) << "sent " << sent;
    for (const std::uint32_t pending : {1u, 31u, 32u, 200u, 900u}) {
      const std::optional<std::uint32_t> measured =
          tx_descriptors_in_use(BatchedMlx5Queue{sent, pending}, 1024, 32);
      ASSERT_TRUE(measured.has_value());
      EXPECT_LE(*measured, pending) << "sent " << sent << " pending " << pending;
      EXPECT_GE(*measured + 31, pending) << "sent " << sent << " pending " << pending;
    }
  }
}

TEST(TxDescriptorsInUse, IntelCountsFromTheTailExactToOneCompletionInterval) {
  for (const std::uint32_t rs_thresh : {1u, 32u}) {
    for (const std::uint32_t tail : {0u, 5u, 32u, 511u, 777u}) {
      for (std::uint32_t in_use = 0; in_use < 1024; in_use += 3) {
        IntelQueue queue{1024, in_use, tail, rs_thresh};
        const std::optional<std::uint32_t> measured = tx_descriptors_in_use(queue, 1024, rs_thresh);
        ASSERT_TRUE(measured.has_value());
        EXPECT_LE(*measured, in_use + rs_thresh)
            << "rs_thresh " << rs_thresh << " tail " << tail << " in use " << in_use;
        EXPECT_GE(*measured + rs_thresh, in_use)
            << "rs_thresh " << rs_thresh << " tail " << tail << " in use " << in_use;
        if (rs_thresh == 1) {
          EXPECT_EQ(*measured, in_use);
        }
        EXPECT_LE(queue.calls, 1 + 10);
      }
    }
  }
}

TEST(TxDescriptorsInUse, AnErrorAnywhereMeansUnknown) {
  int calls = 0;
  auto failing_in_the_middle = [&calls](std::uint32_t offset) {
    ++calls;
    return offset == 0 ? DescriptorState::kInUse : DescriptorState::kUnknown;
  };
  EXPECT_FALSE(tx_descriptors_in_use(failing_in_the_middle, 1024).has_value());
  EXPECT_EQ(calls, 2);
  auto unsupported = [](std::uint32_t) { return DescriptorState::kUnknown; };
  EXPECT_FALSE(tx_descriptors_in_use(unsupported, 1024).has_value());
  Mlx5Queue queue{512, 10};
  EXPECT_FALSE(tx_descriptors_in_use(queue, 0).has_value());
}

}  // namespace
}  // namespace braid::engine
