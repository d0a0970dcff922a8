// mlx5 (ConnectX-4..7 on DPDK 22.11's mlx5 PMD). Where each counter comes from:
//  - PFC pauses on each priority N in use (the bond's and its classes'): the kernel netdev's
//    ethtool stats (`ethtool -S`), rx_prio<N>_pause (pause frames the switch sent us, i.e. our TX
//    on priority N was stopped) and rx_prio<N>_pause_duration (for how long, in microseconds). mlx5
//    is bifurcated: the mlx5e netdev stays while DPDK runs the port. The PMD's xstats are a fixed
//    table that renames some of that netdev's ethtool stats (mlx5_counters_init in
//    drivers/net/mlx5/linux/mlx5_ethdev_os.c) and has no per-priority pause counter. mlx5e lists
//    rx_prio<N>_* only while PFC is on for priority N. The netdev is `netdevs[m]`, or the one under
//    <sys_root>/bus/pci/devices/<the member's PCI address>/net/.
//  - 802.3x link-level pause (rx_global_pause, rx_global_pause_duration: mlx5e lists them instead
//    of the per-priority ones while link-level pause is on): it stops every priority, so it adds
//    to each priority in use and to the bond's pause fields.
//  - discards, transmit side (what lowers a member's transmit weight): ethtool tx_discards_phy
//    (frames the port dropped on transmit for want of buffers), else xstat tx_phy_discard_packets
//    (the PMD's name for it). rx_discards_phy is the receive side (braid's own RX lacking
//    buffers): a health signal (drivers/health), never a reason to send less.
//  - packets sent: xstat tx_good_packets, what the PMD sent from braid's own queues: the drain
//    rate and capacity of braid's queue. tx_packets_phy counts everything the port sent, the
//    host's RDMA and kernel traffic included; per priority in use, ethtool tx_prio<N>_packets
//    (the PFC storm watchdog's progress of priority N).
//  - RoCE congestion: the RDMA device's hw_counters in sysfs (np_ecn_marked_roce_packets:
//    ECN-marked RoCE packets the host's RDMA stack received; rp_cnp_handled: CNPs that slowed the
//    host's own RoCE senders). They count RoCE the host terminates, never frames braid forwards:
//    on a pure gateway they stay 0; where the host runs RoCE over the same ports, they say the
//    port's paths are congested.
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <system_error>

#include "congestion/ethtool_stats.hpp"
#include "congestion/source.hpp"

namespace braid::congestion {
namespace {

namespace fs = std::filesystem;
using F = sched::CongestionCounters;

struct RdmaPort {
  std::string device;
  std::string port = "1";
};

// One place a counter may be: a name in a stats list (nullptr: that list could not be read).
struct Lookup {
  const Xstats* stats;
  std::string name;
  std::string where;  // how the log names it: "xstat rx_phy_discard_packets"
};

// A member's kernel netdev, found once: its name, or why there is none.
struct Netdev {
  std::string name;
  std::string problem;
};

class Mlx5Source final : public Source {
 public:
  Mlx5Source(Mlx5Settings settings, XstatsReader xstats, EthtoolReader ethtool, Logger logger)
      : settings_(std::move(settings)),
        xstats_(std::move(xstats)),
        ethtool_(std::move(ethtool)),
        logger_(logger),
        missing_(std::move(logger)),
        rx_pause_(rx_pause(settings_.pfc.bond)) {}

  std::string_view name() const override { return "mlx5"; }

  F read(std::size_t member, std::uint64_t) override {
    F c;
    const Netdev& netdev = this->netdev(member);
    EthtoolStats ethtool;
    if (!netdev.problem.empty()) {
      missing_.report(member, "PFC pause counters (" + netdev.problem + ")");
    } else {
      ethtool = read_ethtool(netdev.name);
      if (!ethtool.error.empty()) {
        missing_.report(member, "PFC pause counters (" + ethtool.error + ")");
      }
    }
    const Xstats* kernel =
        netdev.problem.empty() && ethtool.error.empty() ? &ethtool.stats : nullptr;
    if (kernel != nullptr) {
      for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
        if (settings_.pfc.uses(p)) read_pauses(member, *kernel, netdev.name, p, c);
      }
      add_link_level_pauses(*kernel, c);
    }
    const Xstats xstats = xstats_ ? xstats_(member) : Xstats{};
    const std::string in_kernel = " in the ethtool stats of " + netdev.name;
    take(member, "transmit discards",
         {{kernel, "tx_discards_phy", "tx_discards_phy" + in_kernel},
          {&xstats, "tx_phy_discard_packets", "xstat tx_phy_discard_packets"},
          {&xstats, "tx_discards_phy", "xstat tx_discards_phy"}},
         F::kDiscards, c.discards, c);
    take(member, "packets sent", {{&xstats, "tx_good_packets", "xstat tx_good_packets"}},
         F::kTxPackets, c.tx_packets, c);
    const fs::path counters = hw_counters(member);
    if (counters.empty()) {
      missing_.report(member, "RDMA device (hw_counters under " + settings_.sysfs_root + ")");
      return c;
    }
    read_sysfs(counters, member, "np_ecn_marked_roce_packets", F::kEcnMarked, c.ecn_marked, c);
    read_sysfs(counters, member, "rp_cnp_handled", F::kCnp, c.cnp, c);
    return c;
  }

 private:
  EthtoolStats read_ethtool(const std::string& ifname) const {
    if (!ethtool_) return EthtoolStats{{}, "ethtool stats of " + ifname + ": no reader bound"};
    return ethtool_(ifname);
  }

  static std::string rx_pause(std::size_t priority) {
    return "rx_prio" + std::to_string(priority) + "_pause";
  }

  // rx_prio<p>_pause and _duration into priority p's counters, and the pause fields for the
  // bond's priority.
  void read_pauses(std::size_t member, const Xstats& kernel, const std::string& netdev,
                   std::size_t p, F& c) {
    const std::string where = " in the ethtool stats of " + netdev +
                              " (mlx5e lists it only while PFC is on for priority " +
                              std::to_string(p) + ")";
    const std::string frames_name = rx_pause(p);
    const std::string duration_name = frames_name + "_duration";
    const bool bond = p == settings_.pfc.bond;
    F read;
    if (take(member, "pause frames", {{&kernel, frames_name, frames_name + where}}, F::kPauseFrames,
             read.pause_frames, read)) {
      c.set_priority_pause_frames(p, read.pause_frames);
      if (bond) c.pause_frames = read.pause_frames;
    }
    if (take(member, "pause duration", {{&kernel, duration_name, duration_name + where}},
             F::kPauseDurationUs, read.pause_duration_us, read)) {
      c.set_priority_pause_duration_us(p, read.pause_duration_us);
      if (bond) c.pause_duration_us = read.pause_duration_us;
    }
    if (bond) c.present |= read.present;
    // tx_prio<N>_packets: mlx5e lists all eight, PFC or not; the storm watchdog's measure of a
    // priority's progress (without it, the port's packets sent stand in).
    if (const std::uint64_t* sent = find_xstat(kernel, "tx_prio" + std::to_string(p) + "_packets"))
      c.set_priority_tx_packets(p, *sent);
  }

  // 802.3x pause stops the whole port: every priority in use sees it, the bond's too.
  static void add_link_level_pauses(const Xstats& kernel, F& c) {
    const std::uint64_t* frames = find_xstat(kernel, "rx_global_pause");
    const std::uint64_t* duration = find_xstat(kernel, "rx_global_pause_duration");
    for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
      if (frames != nullptr) c.set_priority_pause_frames(p, c.priority_pause_frames[p] + *frames);
      if (duration != nullptr) {
        c.set_priority_pause_duration_us(p, c.priority_pause_duration_us[p] + *duration);
      }
    }
    if (frames != nullptr) {
      c.pause_frames += *frames;
      c.present |= F::kPauseFrames;
    }
    if (duration != nullptr) {
      c.pause_duration_us += *duration;
      c.present |= F::kPauseDurationUs;
    }
  }

  // The first lookup that finds its name sets the counter; when none does, the log lists them all
  // (those whose list could not be read are left out: that list's own line says why).
  bool take(std::size_t member, const std::string& what, std::initializer_list<Lookup> lookups,
            F::Field field, std::uint64_t& out, F& c) {
    std::string looked;
    for (const Lookup& lookup : lookups) {
      if (lookup.stats == nullptr) continue;
      if (const std::uint64_t* value = find_xstat(*lookup.stats, lookup.name)) {
        out = *value;
        c.present |= field;
        return true;
      }
      looked += (looked.empty() ? "" : ", ") + lookup.where;
    }
    if (lookups.size() == 1) {
      missing_.report(member, looked);
    } else {
      missing_.report(member, what + " (looked for " + looked + ")");
    }
    return false;
  }

  void read_sysfs(const fs::path& dir, std::size_t member, const std::string& name, F::Field field,
                  std::uint64_t& out, F& c) {
    std::ifstream file(dir / name);
    std::uint64_t value = 0;
    if (file >> value) {
      out = value;
      c.present |= field;
    } else {
      missing_.report(member, "hw_counter " + (dir / name).string());
    }
  }

  // `netdevs[m]`, or the netdev of the member's PCI function; where the function has several
  // (mlx5 switchdev: the uplink and its representors), the first whose ethtool stats have
  // rx_prio<N>_pause. Resolved once per member.
  const Netdev& netdev(std::size_t member) {
    if (netdevs_.size() <= member) netdevs_.resize(member + 1);
    std::optional<Netdev>& slot = netdevs_[member];
    if (slot) return *slot;
    slot.emplace();
    if (member < settings_.netdevs.size() && !settings_.netdevs[member].empty()) {
      slot->name = settings_.netdevs[member];
      return *slot;
    }
    const std::string pci =
        member < settings_.pci_addresses.size() ? settings_.pci_addresses[member] : std::string();
    if (pci.empty()) {
      slot->problem =
          "no PCI address to find the member's kernel netdev by; name it in "
          "congestion.netdevs";
      return *slot;
    }
    const std::vector<std::string> names = pci_netdevs(settings_.sys_root, pci);
    if (names.empty()) {
      slot->problem = "no kernel netdev under " +
                      (fs::path(settings_.sys_root) / "bus/pci/devices" / pci / "net").string() +
                      "; name it in congestion.netdevs";
      return *slot;
    }
    slot->name = names.front();
    if (names.size() > 1) {
      for (const std::string& name : names) {
        if (find_xstat(read_ethtool(name).stats, rx_pause_) != nullptr) {
          slot->name = name;
          break;
        }
      }
      std::string list;
      for (const std::string& name : names)
        list += (list.empty() ? "" : ", ") + name;
      if (logger_) {
        logger_(member, "PCI " + pci + " has netdevs " + list + "; reading " + slot->name +
                            " (congestion.netdevs names another)");
      }
    }
    return *slot;
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
      // error_code overloads throughout: nothing here may throw into the control thread.
      std::error_code error;
      for (fs::directory_iterator it(settings_.sysfs_root, error), end; !error && it != end;
           it.increment(error)) {
        std::error_code link_error;
        const fs::path link = fs::read_symlink(it->path() / "device", link_error);
        if (!link_error && link.filename() == settings_.pci_addresses[member]) {
          port.device = it->path().filename().string();
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
  EthtoolReader ethtool_;
  Logger logger_;
  MissingOnce missing_;
  std::string rx_pause_;  // the bond priority's, which picks a PCI function's netdev
  std::vector<std::optional<Netdev>> netdevs_;
  std::vector<std::optional<fs::path>> resolved_;
};

}  // namespace

std::unique_ptr<Source> make_mlx5_source(Mlx5Settings settings, XstatsReader xstats,
                                         EthtoolReader ethtool, Logger logger) {
  return std::make_unique<Mlx5Source>(std::move(settings), std::move(xstats), std::move(ethtool),
                                      std::move(logger));
}

}  // namespace braid::congestion
