#include "bond/dpdk/member_links.hpp"

#include <rte_pause.h>

#include <cerrno>

namespace braid::bond {

MemberLinks::MemberLinks(std::vector<drivers::EthdevPort*> ports,
                         drivers::KernelLinks* kernel_links, const Waker* waker,
                         std::uint64_t poll_interval_ns)
    : ports_(std::move(ports)),
      kernel_links_(kernel_links),
      waker_(waker),
      poll_interval_ns_(poll_interval_ns),
      links_(ports_.size()),
      interrupt_registered_(ports_.size(), false) {
  for (drivers::EthdevPort* port : ports_) {
    if (port->kernel_ifindex() != 0 && kernel_links_ != nullptr)
      kernel_links_->watch(port->kernel_ifindex());
  }
}

MemberLinks::~MemberLinks() {
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    if (!interrupt_registered_[m]) continue;
    // -EAGAIN: the callback runs on EAL's interrupt thread right now; it must not run on a
    // destroyed object, so wait until it has returned (it only sets a flag).
    while (rte_eth_dev_callback_unregister(ports_[m]->id(), RTE_ETH_EVENT_INTR_LSC, on_interrupt,
                                           this) == -EAGAIN)
      rte_pause();
  }
}

void MemberLinks::register_interrupts() {
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    if (!ports_[m]->lsc_interrupts() || interrupt_registered_[m]) continue;
    interrupt_registered_[m] =
        rte_eth_dev_callback_register(ports_[m]->id(), RTE_ETH_EVENT_INTR_LSC, on_interrupt,
                                      this) == 0;
  }
}

int MemberLinks::on_interrupt(std::uint16_t, rte_eth_event_type, void* links, void*) {
  // Runs on EAL's interrupt thread: only flag it and wake the protocol loop, which reads the
  // links itself.
  auto* self = static_cast<MemberLinks*>(links);
  self->event_.store(true, std::memory_order_release);
  if (self->waker_ != nullptr) self->waker_->notify();
  return 0;
}

std::vector<std::size_t> MemberLinks::poll(std::uint64_t now_ns, LateDeadlines& late,
                                           BondEventLog& events) {
  const bool event = event_.exchange(false, std::memory_order_acq_rel);
  const bool due = now_ns >= next_poll_ns_;
  if (due) late.note(DeadlineKind::kLinkPoll, next_poll_ns_, now_ns);
  if (!event && !due) return {};
  return read(now_ns, events);
}

std::vector<std::size_t> MemberLinks::read(std::uint64_t now_ns, BondEventLog& events) {
  next_poll_ns_ = now_ns + poll_interval_ns_;
  std::vector<std::size_t> changed;
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    MemberLink& member = links_[m];
    rte_eth_link link{};
    if (rte_eth_link_get_nowait(ports_[m]->id(), &link) != 0) continue;
    bool up = link.link_status == RTE_ETH_LINK_UP;
    // A kernel interface's own link (net_af_packet says up from start to stop).
    if (const int ifindex = ports_[m]->kernel_ifindex(); ifindex != 0 && kernel_links_ != nullptr)
      up = up && kernel_links_->up(ifindex).value_or(true);
    if (up == member.up && link.link_speed == member.speed_mbps) continue;
    member.up = up;
    member.speed_mbps = link.link_speed;
    member.full_duplex = link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX;
    ++changes_;
    changed.push_back(m);
    events.log(now_ns, "member " + ports_[m]->name() + " link " + (up ? "up " : "down") +
                           (up ? " " + std::to_string(link.link_speed) + " Mbit/s" : ""));
  }
  return changed;
}

const char* MemberLinks::source(std::size_t m) const {
  if (ports_[m]->lsc_interrupts()) return "interrupt";
  return ports_[m]->kernel_ifindex() != 0 && kernel_links_ != nullptr ? "kernel" : "poll";
}

}  // namespace braid::bond
