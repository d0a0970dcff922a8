// mlx5 (ConnectX-4..7): PFC pause counters from ethdev xstats (rx_prioN_pause: pause frames the
// switch sent us, i.e. our TX on priority N was stopped; rx_prioN_pause_duration: for how long,
// in microseconds; rx_discards_phy or rx_discards; tx_packets_phy), and RoCE congestion counters
// from the RDMA device's hw_counters in sysfs (np_ecn_marked_roce_packets: ECN-marked packets we
// received; rp_cnp_handled: CNPs telling our TX to slow down).
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "congestion/source.hpp"

namespace braid::congestion {
namespace {

namespace fs = std::filesystem;

struct RdmaPort {
  std::string device;
  std::string port = "1";
};

class Mlx5Source final : public Source {
 public:
  Mlx5Source(Mlx5Settings settings, XstatsReader xstats, Logger logger)
      : settings_(std::move(settings)), xstats_(std::move(xstats)), missing_(std::move(logger)) {
    const std::string prio = "prio" + std::to_string(settings_.priority);
    rx_pause_ = "rx_" + prio + "_pause";
    rx_pause_duration_ = rx_pause_ + "_duration";
  }

  std::string_view name() const override { return "mlx5"; }

  sched::CongestionCounters read(std::size_t member, std::uint64_t) override {
    sched::CongestionCounters c;
    const Xstats xstats = xstats_ ? xstats_(member) : Xstats{};
    take(xstats, member, rx_pause_, sched::CongestionCounters::kPauseFrames, c.pause_frames, c);
    take(xstats, member, rx_pause_duration_, sched::CongestionCounters::kPauseDurationUs,
         c.pause_duration_us, c);
    if (find_xstat(xstats, "rx_discards_phy") != nullptr) {
      take(xstats, member, "rx_discards_phy", sched::CongestionCounters::kDiscards, c.discards, c);
    } else {
      take(xstats, member, "rx_discards", sched::CongestionCounters::kDiscards, c.discards, c);
    }
    take(xstats, member, "tx_packets_phy", sched::CongestionCounters::kTxPackets, c.tx_packets, c);
    const fs::path counters = hw_counters(member);
    if (counters.empty()) {
      missing_.report(member, "RDMA device (hw_counters under " + settings_.sysfs_root + ")");
      return c;
    }
    read_sysfs(counters, member, "np_ecn_marked_roce_packets",
               sched::CongestionCounters::kEcnMarked, c.ecn_marked, c);
    read_sysfs(counters, member, "rp_cnp_handled", sched::CongestionCounters::kCnp, c.cnp, c);
    return c;
  }

 private:
  void take(const Xstats& xstats, std::size_t member, const std::string& name,
            sched::CongestionCounters::Field field, std::uint64_t& out,
            sched::CongestionCounters& c) {
    if (const std::uint64_t* value = find_xstat(xstats, name)) {
      out = *value;
      c.present |= field;
    } else {
      missing_.report(member, "xstat " + name);
    }
  }

  void read_sysfs(const fs::path& dir, std::size_t member, const std::string& name,
                  sched::CongestionCounters::Field field, std::uint64_t& out,
                  sched::CongestionCounters& c) {
    std::ifstream file(dir / name);
    std::uint64_t value = 0;
    if (file >> value) {
      out = value;
      c.present |= field;
    } else {
      missing_.report(member, "hw_counter " + (dir / name).string());
    }
  }

  // <root>/<dev>/ports/<port>/hw_counters, the device named in the settings or the one whose
  // `device` link ends in the member's PCI address. Resolved once per member.
  fs::path hw_counters(std::size_t member) {
    if (resolved_.size() <= member) resolved_.resize(member + 1);
    if (resolved_[member]) return *resolved_[member];
    RdmaPort port;
    if (member < settings_.rdma_devices.size() && !settings_.rdma_devices[member].empty()) {
      const std::string& spec = settings_.rdma_devices[member];
      const std::size_t colon = spec.find(':');
      port.device = spec.substr(0, colon);
      if (colon != std::string::npos) port.port = spec.substr(colon + 1);
    } else if (member < settings_.pci_addresses.size()) {
      std::error_code error;
      for (const auto& entry : fs::directory_iterator(settings_.sysfs_root, error)) {
        const fs::path link = fs::read_symlink(entry.path() / "device", error);
        if (!error && link.filename() == settings_.pci_addresses[member]) {
          port.device = entry.path().filename().string();
          break;
        }
      }
    }
    fs::path dir;
    if (!port.device.empty()) {
      dir = fs::path(settings_.sysfs_root) / port.device / "ports" / port.port / "hw_counters";
      std::error_code error;
      if (!fs::is_directory(dir, error)) dir.clear();
    }
    resolved_[member] = dir;
    return dir;
  }

  Mlx5Settings settings_;
  XstatsReader xstats_;
  MissingOnce missing_;
  std::string rx_pause_;
  std::string rx_pause_duration_;
  std::vector<std::optional<fs::path>> resolved_;
};

}  // namespace

std::unique_ptr<Source> make_mlx5_source(Mlx5Settings settings, XstatsReader xstats,
                                         Logger logger) {
  return std::make_unique<Mlx5Source>(std::move(settings), std::move(xstats), std::move(logger));
}

}  // namespace braid::congestion
