#include "port/kernel_links.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace braid::drivers {
namespace {

constexpr std::size_t kReceiveBuffer = 16384;

// Administratively up and operationally up (IFF_RUNNING: carrier, RFC 2863 operstate up); the
// same bits in SIOCGIFFLAGS's 16 bits and in netlink's ifi_flags.
bool is_up(unsigned flags) {
  return (flags & IFF_UP) != 0 && (flags & IFF_RUNNING) != 0;
}

}  // namespace

void KernelLinks::open() {
  fd_ = ::socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd_ < 0) {
    error_ = std::string("netlink socket: ") + std::strerror(errno);
    return;
  }
  sockaddr_nl address{};
  address.nl_family = AF_NETLINK;
  address.nl_groups = RTMGRP_LINK;
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    error_ = std::string("netlink bind (RTMGRP_LINK): ") + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return;
  }
  ioctl_fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

KernelLinks::~KernelLinks() {
  if (fd_ >= 0) ::close(fd_);
  if (ioctl_fd_ >= 0) ::close(ioctl_fd_);
}

void KernelLinks::watch(int ifindex) {
  if (fd_ < 0 && error_.empty()) open();
  up_.emplace(ifindex, true);
  read_flags(ifindex);
}

bool KernelLinks::set_state(int ifindex, bool up) {
  auto it = up_.find(ifindex);
  if (it == up_.end() || it->second == up) return false;
  it->second = up;
  return true;
}

bool KernelLinks::read_flags(int ifindex) {
  if (ioctl_fd_ < 0) return false;
  ifreq request{};
  if (::if_indextoname(static_cast<unsigned>(ifindex), request.ifr_name) == nullptr) {
    return set_state(ifindex, false);  // the interface is gone
  }
  if (::ioctl(ioctl_fd_, SIOCGIFFLAGS, &request) != 0) return false;
  return set_state(ifindex, is_up(static_cast<unsigned short>(request.ifr_flags)));
}

bool KernelLinks::poll(unsigned max_messages) {
  if (fd_ < 0) return false;
  bool changed = false;
  std::array<char, kReceiveBuffer> buffer;
  for (unsigned read = 0; read < max_messages; ++read) {
    const ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (got < 0) {
      if (errno == ENOBUFS) {
        // Notifications were lost: read every watched interface instead.
        for (const auto& [ifindex, up] : up_)
          changed = read_flags(ifindex) || changed;
        continue;
      }
      break;  // EAGAIN: nothing more
    }
    // The messages one after the other, each aligned to NLMSG_ALIGNTO (netlink(7)).
    const auto length = static_cast<std::size_t>(got);
    for (std::size_t offset = 0; offset + sizeof(nlmsghdr) <= length;) {
      nlmsghdr header;
      std::memcpy(&header, buffer.data() + offset, sizeof header);
      if (header.nlmsg_len < sizeof header || offset + header.nlmsg_len > length) break;
      const std::size_t this_offset = offset;
      offset += NLMSG_ALIGN(header.nlmsg_len);
      if (header.nlmsg_type != RTM_NEWLINK && header.nlmsg_type != RTM_DELLINK) continue;
      if (header.nlmsg_len < NLMSG_LENGTH(sizeof(ifinfomsg))) continue;
      ifinfomsg message;
      std::memcpy(&message, buffer.data() + this_offset + NLMSG_HDRLEN, sizeof message);
      const ifinfomsg* info = &message;
      if (!up_.contains(info->ifi_index)) continue;
      ++notifications_;
      const bool up = header.nlmsg_type == RTM_NEWLINK && is_up(info->ifi_flags);
      changed = set_state(info->ifi_index, up) || changed;
    }
  }
  return changed;
}

std::optional<bool> KernelLinks::up(int ifindex) const {
  const auto it = up_.find(ifindex);
  if (it == up_.end()) return std::nullopt;
  return it->second;
}

}  // namespace braid::drivers
