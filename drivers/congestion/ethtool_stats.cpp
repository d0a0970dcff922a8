#include "congestion/ethtool_stats.hpp"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace braid::congestion {
namespace {

// Each request is a fixed header followed by its array (`data[]` in <linux/ethtool.h>); the array
// starts right after the header, which the buffers below rely on.
static_assert(offsetof(ethtool_sset_info, data) == sizeof(ethtool_sset_info));
static_assert(offsetof(ethtool_gstrings, data) == sizeof(ethtool_gstrings));
static_assert(offsetof(ethtool_stats, data) == sizeof(ethtool_stats));

// The count, the names and the values are three requests, and a driver may change its statistics
// in between (mlx5e: PFC switched on for one more priority, more channels). Kernels with commit
// 7b07be1ff1cb ("ethtool: Avoid overflowing userspace buffer on stats query") then return no
// entries (len or n_stats 0); older ones write their new count of entries whatever the buffer
// holds, so each buffer has this many spare entries. Either way the read is tried again.
constexpr std::uint32_t kSpareEntries = 512;
constexpr int kAttempts = 3;

class Socket {
 public:
  Socket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    // SIOCETHTOOL goes to the netdev whatever the socket's family; AF_UNIX where IPv4 is absent.
    if (fd_ < 0) fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  }
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A request's header and array, 8-byte aligned for the u64 values.
class Request {
 public:
  Request(const void* header, std::size_t header_size, std::size_t array_bytes)
      : words_((header_size + array_bytes + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t)),
        header_size_(header_size) {
    std::memcpy(words_.data(), header, header_size);
  }
  void* data() { return words_.data(); }
  void header(void* out) const { std::memcpy(out, words_.data(), header_size_); }
  const unsigned char* array() const {
    return reinterpret_cast<const unsigned char*>(words_.data()) + header_size_;
  }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t header_size_;
};

// 0, or the errno of a SIOCETHTOOL request on `ifname` (shorter than IFNAMSIZ).
int ethtool_ioctl(const Socket& socket, const std::string& ifname, Request& request) {
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());
  ifr.ifr_data = static_cast<char*>(request.data());
  return ::ioctl(socket.fd(), SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
}

std::string reason(int error) {
  if (error == ENODEV) return "no netdev of that name in this network namespace";
  if (error == EOPNOTSUPP) return "its driver reports no ethtool statistics";
  return std::strerror(error);
}

EthtoolStats failed(const std::string& ifname, const std::string& what) {
  return EthtoolStats{{}, "ethtool stats of " + ifname + ": " + what};
}

}  // namespace

EthtoolStats read_ethtool_stats(const std::string& ifname) {
  if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
    return failed("\"" + ifname + "\"",
                  "not a netdev name (1.." + std::to_string(IFNAMSIZ - 1) + " characters)");
  }
  const Socket socket;
  if (socket.fd() < 0) {
    return failed(ifname, std::string("no socket for SIOCETHTOOL: ") + std::strerror(errno));
  }
  std::uint32_t changed_from = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ethtool_sset_info info{};
    info.cmd = ETHTOOL_GSSET_INFO;
    info.sset_mask = 1ULL << ETH_SS_STATS;
    Request count_request(&info, sizeof(info), sizeof(std::uint32_t));
    if (const int error = ethtool_ioctl(socket, ifname, count_request)) {
      return failed(ifname, "ETHTOOL_GSSET_INFO: " + reason(error));
    }
    count_request.header(&info);
    std::uint32_t count = 0;
    // The mask comes back without ETH_SS_STATS when the driver has no such set.
    if ((info.sset_mask & (1ULL << ETH_SS_STATS)) != 0) {
      std::memcpy(&count, count_request.array(), sizeof(count));
    }
    if (count == 0) return failed(ifname, "its driver reports no ethtool statistics");

    ethtool_gstrings strings{};
    strings.cmd = ETHTOOL_GSTRINGS;
    strings.string_set = ETH_SS_STATS;
    strings.len = count;
    Request names_request(&strings, sizeof(strings),
                          std::size_t{count + kSpareEntries} * ETH_GSTRING_LEN);
    if (const int error = ethtool_ioctl(socket, ifname, names_request)) {
      return failed(ifname, "ETHTOOL_GSTRINGS: " + reason(error));
    }
    names_request.header(&strings);

    ethtool_stats values{};
    values.cmd = ETHTOOL_GSTATS;
    values.n_stats = count;
    Request values_request(&values, sizeof(values),
                           std::size_t{count + kSpareEntries} * sizeof(std::uint64_t));
    if (const int error = ethtool_ioctl(socket, ifname, values_request)) {
      return failed(ifname, "ETHTOOL_GSTATS: " + reason(error));
    }
    values_request.header(&values);
    if (strings.len != count || values.n_stats != count) {
      changed_from = count;
      continue;
    }

    EthtoolStats result;
    result.stats.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      // A name fills ETH_GSTRING_LEN bytes, NUL-padded, and is not terminated when it fills all.
      const auto* name =
          reinterpret_cast<const char*>(names_request.array()) + std::size_t{i} * ETH_GSTRING_LEN;
      std::uint64_t value = 0;
      std::memcpy(&value, values_request.array() + std::size_t{i} * sizeof(value), sizeof(value));
      result.stats.emplace_back(std::string(name, ::strnlen(name, ETH_GSTRING_LEN)), value);
    }
    return result;
  }
  return failed(ifname, "the number of statistics kept changing while they were read (" +
                            std::to_string(changed_from) + " at the last try)");
}

std::vector<std::string> pci_netdevs(const std::string& sys_root, const std::string& pci_address) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  if (pci_address.empty()) return names;
  std::error_code error;
  const fs::path dir = fs::path(sys_root) / "bus" / "pci" / "devices" / pci_address / "net";
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace braid::congestion
