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
