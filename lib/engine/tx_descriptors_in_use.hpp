// How many descriptors of a TX queue hold packets the NIC has not sent yet, from what
// rte_eth_tx_descriptor_status says about single offsets. PMDs count offsets from opposite
// ends: mlx5 and bnxt from the oldest packet not yet completed (in use, ..., in use, free, ...),
// Intel (ixgbe, i40e, ice) and hns3 from the tail, the slot the next packet takes, so the
// oldest, completed slots come first (free, ..., free, in use, ...). Offset 0 tells which case
// holds: in use means packets are pending from the oldest on (or an Intel ring is full), free
// means the queue is empty (mlx5) or the free slots come first (Intel). Then a binary search
// finds the step: 1 + log2(ring_size) calls, 11 for 1024 descriptors.
//
// Intel PMDs read the completion bit of the next descriptor that reports it (every
// tx_rs_thresh slots), so their answers move in steps of that interval and the last interval of
// offsets wraps around to the oldest slots; the search stays below it and the count is exact to
// one interval.
//
// mlx5 (DPDK 22.11, mlx5_tx_descriptor_status) answers "in use" for every packet between the
// oldest one not yet completed and the newest, and asks the NIC for a completion only every
// MLX5_TX_COMP_THRESH (32) packets: up to 31 packets the NIC sent long ago stay "in use" until
// the next completion, so a queue that went quiet read up to 31 for ever. Counting from the
// oldest, braid takes the interval less one off: a lower bound, exact to one interval, never a
// queue that is not there. (Packets mlx5 inlined whole into the send queue hold no element and
// are never counted: with small frames the depth reads low; doc/scheduler.md.) Pure: the status
// function is injected.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace braid::engine {

enum class DescriptorState : std::uint8_t {
  kInUse,    // RTE_ETH_TX_DESC_FULL (waiting to be sent) or _UNAVAIL (held by driver or NIC)
  kFree,     // RTE_ETH_TX_DESC_DONE
  kUnknown,  // the PMD answered an error
};

// `status(offset)` answers for offsets 0..ring_size-1; `report_interval` is how many
// descriptors the PMD completes at a time (tx_rs_thresh, mlx5's completion threshold; 0 or 1
// when it reports each one). nullopt when any answer was kUnknown.
template <typename StatusFn>
std::optional<std::uint32_t> tx_descriptors_in_use(StatusFn&& status, std::uint32_t ring_size,
                                                   std::uint32_t report_interval = 1) {
  if (ring_size == 0) return std::nullopt;
  const DescriptorState oldest = status(std::uint32_t{0});
  if (oldest == DescriptorState::kUnknown) return std::nullopt;
  const bool in_use_first = oldest == DescriptorState::kInUse;
  // The lowest offset in the other state, searched in (0, end]; `end` itself is not asked.
  const std::uint32_t end =
      in_use_first ? ring_size : ring_size - std::min(ring_size, std::max(report_interval, 1u));
  std::uint32_t low = 0;
  std::uint32_t high = end;
  while (high - low > 1) {
    const std::uint32_t middle = low + (high - low) / 2;
    const DescriptorState state = status(middle);
    if (state == DescriptorState::kUnknown) return std::nullopt;
    (state == oldest ? low : high) = middle;
  }
  // In use: offsets [0, high), of which up to an interval less one may be sent and not completed.
  if (in_use_first) return high - std::min(high, std::max(report_interval, 1u) - 1);
  return high == end ? 0u : ring_size - high;  // in use: offsets [high, ring_size)
}

}  // namespace braid::engine
