// Where a bond's congestion feedback comes from: one interface, one file per source (mlx5, generic
// xstats, simulated). A source returns each member's cumulative counters; the scheduler takes the
// deltas. A counter a source cannot find is left out of `present` (and logged once), so feedback
// works from whatever is there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sched/congestion.hpp"

namespace braid::congestion {

// A port's extended statistics by name (rte_eth_xstats_get_names + rte_eth_xstats_get; see
// ethdev_xstats.hpp), injectable so the sources are tested from fixture files.
using Xstats = std::vector<std::pair<std::string, std::uint64_t>>;
using XstatsReader = std::function<Xstats(std::size_t member)>;
// A kernel netdev's ethtool statistics (`ethtool -S`, read through SIOCETHTOOL: see
// ethtool_stats.hpp), injectable the same way. `stats` is empty and `error` says why when the
// netdev cannot be read.
struct EthtoolStats {
  Xstats stats;
  std::string error;
};
using EthtoolReader = std::function<EthtoolStats(const std::string& ifname)>;
// Where "logged once" lines about a member go (braid.sched rte_log in braid, which names the
// member by its config name; a vector in tests). `member` is the index in the bond.
using Logger = std::function<void(std::size_t member, const std::string& what)>;

class Source {
 public:
  virtual ~Source() = default;
  virtual std::string_view name() const = 0;
  virtual sched::CongestionCounters read(std::size_t member, std::uint64_t now_ns) = 0;
};

// The PFC priorities a bond's pause counters are read for: its own (scheduler.congestion.priority,
// the counters' pause_frames / pause_duration_us) and every class's (classes.list[].priority),
// each in CongestionCounters' per-priority fields.
struct PfcPriorities {
  std::uint8_t bond = 3;
  std::uint8_t in_use = 0;  // bit p: a class rides on priority p (`bond` is always read)

  bool uses(std::size_t priority) const {
    return priority == bond ||
           (priority < sched::kPfcPriorities && ((in_use >> priority) & 1u) != 0);
  }
};

// Looks a name up in an xstats list; nullptr when absent.
const std::uint64_t* find_xstat(const Xstats& xstats, std::string_view name);

// Reports each (member, counter) that is missing once.
class MissingOnce {
 public:
  explicit MissingOnce(Logger logger) : logger_(std::move(logger)) {}
  void report(std::size_t member, const std::string& what);

 private:
  Logger logger_;
  std::vector<std::string> seen_;
};

struct Mlx5Settings {
  PfcPriorities pfc;  // rx_prio<N>_pause(_duration) for each; `bond`: the one RoCE traffic uses
  std::string sysfs_root = "/sys/class/infiniband";
  // Per member "mlx5_0" or "mlx5_0:1" (device[:port]); empty entries are found by PCI address.
  std::vector<std::string> rdma_devices;
  // Per member kernel netdev ("ens1f0np0") whose ethtool stats hold the PFC pause counters; empty
  // entries are found by PCI address under <sys_root>/bus/pci/devices/<pci>/net/.
  std::vector<std::string> netdevs;
  std::string sys_root = "/sys";
  std::vector<std::string> pci_addresses;  // per member, for the lookups above
};

// `pause` and `pause_duration` may hold "{prio}": each priority in use reads its own counter, the
// pattern with the priority's number (ixgbe and i40e: rx_priority{prio}_xoff_packets). Without
// it, the name is one link-level counter (802.3x XOFF stops every priority): every priority in
// use sees it.
struct XstatsNames {
  std::string pause = "rx_xoff_packets";  // pause frames received (ixgbe/i40e/ice spelling)
  std::string pause_duration;             // none by default
  std::string discards = "rx_missed_errors";
  std::string ecn_marked;
  std::string cnp;
  std::string tx_packets = "tx_good_packets";
};

// A member's counters measured by an emulated link (drivers/linkemu), nullopt where none is
// attached; the engine binds it to linkemu's registry.
using LinkCounters = std::function<std::optional<sched::CongestionCounters>(std::size_t member)>;

struct SimSettings {
  // Per member: the fraction of time it is paused (permille, on priority pfc.bond) and ECN marks
  // per packet sent.
  std::vector<std::uint32_t> pause_permille;
  std::vector<std::uint32_t> mark_permille;
  std::uint64_t packets_per_ms = 1000;  // the sent count the marks are a fraction of
  // Members on an emulated link report what the link measured instead of the scripted values,
  // per priority; its pauses on pfc.bond are the counters' pause_frames / pause_duration_us.
  LinkCounters link_counters;
  PfcPriorities pfc;
};

std::unique_ptr<Source> make_mlx5_source(Mlx5Settings settings, XstatsReader xstats,
                                         EthtoolReader ethtool, Logger logger);
std::unique_ptr<Source> make_xstats_source(XstatsNames names, XstatsReader xstats, Logger logger,
                                           PfcPriorities pfc = {});
class SimSource;
std::unique_ptr<SimSource> make_sim_source(SimSettings settings, std::size_t members);

}  // namespace braid::congestion
