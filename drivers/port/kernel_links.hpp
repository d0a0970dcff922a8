// Link state of ports backed by a kernel network interface whose PMD does not follow the
// kernel's link (net_af_packet reports "up" from start to stop whatever the interface does),
// taken from the kernel itself: a NETLINK_ROUTE socket subscribed to link notifications
// (RTMGRP_LINK) delivers every change as it happens, so a member on a veth or a kernel NIC fails
// over as fast as one with link interrupts. The initial state is read with SIOCGIFFLAGS.
//
// An interface is up when it is administratively up (IFF_UP) and operationally up (IFF_RUNNING:
// carrier): `ip link set dev down` on either end of a veth pair takes the other end's away.
// Owned by the protocol loop: poll() whenever fd() is readable.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace braid::drivers {

class KernelLinks {
 public:
  // Opens nothing yet: the netlink socket is opened by the first watch(), so a braid without a
  // kernel-backed member is not woken by every link change on the host. If opening fails (no
  // netlink in this sandbox), error() says why and every interface reads as up (the PMD's link
  // state alone decides, as before).
  KernelLinks() = default;
  ~KernelLinks();
  KernelLinks(const KernelLinks&) = delete;
  KernelLinks& operator=(const KernelLinks&) = delete;

  // Starts following `ifindex` (reads its state now).
  void watch(int ifindex);
  // Reads at most `max_messages` pending notifications. True when a watched interface's state
  // changed. Missed notifications (the socket's buffer overran) are recovered by reading every
  // watched interface again.
  bool poll(unsigned max_messages = 64);
  // nullopt: not watched, or its state cannot be read.
  std::optional<bool> up(int ifindex) const;

  int fd() const { return fd_; }  // -1 until an interface is watched
  const std::string& error() const { return error_; }
  std::uint64_t notifications() const { return notifications_; }

 private:
  void open();
  bool read_flags(int ifindex);
  bool set_state(int ifindex, bool up);

  int fd_ = -1;
  int ioctl_fd_ = -1;
  std::string error_;
  std::map<int, bool> up_;
  std::uint64_t notifications_ = 0;
};

}  // namespace braid::drivers
