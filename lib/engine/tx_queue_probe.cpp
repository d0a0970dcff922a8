#include "engine/tx_queue_probe.hpp"

#include <rte_ethdev.h>

#include <cerrno>

#include "engine/tx_descriptors_in_use.hpp"
#include "linkemu/link_registry.hpp"

namespace braid::engine {
namespace {

DescriptorState descriptor_state(int status) {
  switch (status) {
    case RTE_ETH_TX_DESC_FULL:
    case RTE_ETH_TX_DESC_UNAVAIL:
      return DescriptorState::kInUse;
    case RTE_ETH_TX_DESC_DONE:
      return DescriptorState::kFree;
    default:
      return DescriptorState::kUnknown;
  }
}

}  // namespace

TxQueueProbe::TxQueueProbe(bond::BondEgress* egress, std::vector<MemberQueue> members,
                           std::uint64_t interval_cycles)
    : egress_(egress),
      members_(std::move(members)),
      methods_(members_.size(), Method::kUntried),
      published_(new SeqLock<Reading>[members_.size()]),
      interval_cycles_(interval_cycles) {}

void TxQueueProbe::measure(std::uint64_t now_tsc, datapath::WorkerCounters& counters) {
  // A table published before this tick is seen before it is measured: the measurement's time
  // then also says this worker sends nothing more the way older tables said.
  if (egress_ != nullptr) egress_->refresh(counters);
  const std::uint64_t generation = egress_ != nullptr ? egress_->seen_generation() : 0;
  const bool descriptors_due = now_tsc >= next_descriptors_tsc_;
  if (descriptors_due) next_descriptors_tsc_ = now_tsc + interval_cycles_;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const MemberQueue& member = members_[m];
    if (methods_[m] == Method::kUntried) {
      // Asked once: a PMD that does not implement it never will.
      methods_[m] = rte_eth_tx_descriptor_status(member.port, member.queue, 0) != -ENOTSUP
                        ? Method::kDescriptorStatus
                    : linkemu::attached_link(member.port) ? Method::kEmulatedLink
                                                          : Method::kBufferOnly;
    }
    Reading reading{member.buffer != nullptr ? member.buffer->pending() : 0u, false, now_tsc,
                    generation};
    if (methods_[m] == Method::kDescriptorStatus) {
      // The buffer and the descriptors are read together or not at all: the reading then stays
      // as of the last descriptor read.
      if (!descriptors_due) continue;
      const std::optional<std::uint32_t> in_use = tx_descriptors_in_use(
          [&member](std::uint32_t offset) {
            return descriptor_state(rte_eth_tx_descriptor_status(
                member.port, member.queue, static_cast<std::uint16_t>(offset)));
          },
          member.ring_size, member.report_interval);
      if (in_use) {
        reading.packets += *in_use;
        reading.descriptors = true;
      }
      // This worker's own queue, for its ECN marking at every burst until the next reading.
      if (egress_ != nullptr) egress_->note_queue(m, in_use.value_or(0));
    } else if (methods_[m] == Method::kEmulatedLink && descriptors_due && egress_ != nullptr) {
      const std::optional<linkemu::LinkReading> link = linkemu::attached_link(member.port);
      egress_->note_queue(m, link ? link->queue_depth : 0);
    }
    published_[m].store(reading);
  }
}

TxQueueProbe::Reading TxQueueProbe::reading(std::size_t member) const {
  if (member >= members_.size()) return {};
  return published_[member].load().value_or(Reading{});
}

}  // namespace braid::engine
