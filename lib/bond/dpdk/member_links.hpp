// The link state of a bond's members as the protocol loop reads it: from the PMD's link-status
// interrupt where the port has one (EAL's interrupt thread only flags the event and wakes the
// loop), from the kernel's netlink for members on kernel interfaces (net_af_packet reports its
// link up from start to stop), and by polling every link_poll_us otherwise. Says which members'
// links changed; what a change means is the bond's business.
#pragma once

#include <rte_ethdev.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "bond/dpdk/bond_events.hpp"
#include "bond/dpdk/late_deadlines.hpp"
#include "common/waker.hpp"
#include "port/ethdev_port.hpp"
#include "port/kernel_links.hpp"

namespace braid::bond {

struct MemberLink {
  bool up = false;
  std::uint32_t speed_mbps = 0;
  bool full_duplex = true;
};

class MemberLinks {
 public:
  // Watches the members' kernel interfaces at once (kernel_links may be null).
  MemberLinks(std::vector<drivers::EthdevPort*> ports, drivers::KernelLinks* kernel_links,
              const Waker* waker, std::uint64_t poll_interval_ns);
  ~MemberLinks();
  MemberLinks(const MemberLinks&) = delete;
  MemberLinks& operator=(const MemberLinks&) = delete;

  // After the ports started: the link-status interrupts of the members whose PMD has them.
  void register_interrupts();
  // A member's kernel interface changed (or an interrupt came): read the links at the next poll.
  void notify_event() { event_.store(true, std::memory_order_release); }
  // Reads the links when an event came or the poll is due (its lateness noted); returns the
  // members whose link changed (up/down or speed), each logged as an event.
  std::vector<std::size_t> poll(std::uint64_t now_ns, LateDeadlines& late, BondEventLog& events);
  // Reads every link now (start-up).
  std::vector<std::size_t> read(std::uint64_t now_ns, BondEventLog& events);
  std::uint64_t next_poll_ns() const { return next_poll_ns_; }

  const MemberLink& link(std::size_t m) const { return links_[m]; }
  bool up(std::size_t m) const { return links_[m].up; }
  // "interrupt", "kernel" or "poll": where member m's link state comes from.
  const char* source(std::size_t m) const;
  std::uint64_t changes() const { return changes_; }

 private:
  static int on_interrupt(std::uint16_t port_id, rte_eth_event_type event, void* links,
                          void* unused);

  std::vector<drivers::EthdevPort*> ports_;
  drivers::KernelLinks* kernel_links_;
  const Waker* waker_;
  std::uint64_t poll_interval_ns_;
  std::vector<MemberLink> links_;
  std::vector<bool> interrupt_registered_;
  std::atomic<bool> event_{false};
  std::uint64_t next_poll_ns_ = 0;
  std::uint64_t changes_ = 0;
};

}  // namespace braid::bond
