// braid's declarative configuration: plain structs, filled from YAML by config_loader and
// checked by config_validate. Nothing here depends on DPDK, so `braid --check` and the tests can
// validate a file without starting EAL.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bond/member_service.hpp"
#include "classify/class_spec.hpp"
#include "config/bfd_config.hpp"
#include "config/lldp_settings.hpp"
#include "health/member_health.hpp"
#include "health/pfc_storm.hpp"

namespace braid::config {

// Raised for every problem in a config file. The message names the file, the key and what is
// wrong, e.g. `config: demo.yaml:12: ports[1] "p2": rx_queues must be 1..64, got 0`.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EalConfig {
  std::string file_prefix = "braid";  // unique per process; dpdk-telemetry/dumpcap attach by it
  std::vector<std::string> args;      // passed to rte_eal_init after braid's own
  unsigned main_lcore = 0;
  unsigned no_huge_memory_mb = 512;  // -m used when the machine has no free hugepages
};

enum class RssKey { kDefault, kSymmetric, kExplicit };

struct RssConfig {
  std::vector<std::string> hash_fields = {"ipv4", "ipv6", "tcp", "udp"};
  RssKey key_kind = RssKey::kDefault;
  std::vector<std::uint8_t> key;  // only for kExplicit (40 or 52 bytes)
};

struct PortConfig {
  std::string name;
  std::string device;  // vdev spec ("net_ring0"), PCI address with devargs, or an existing port
  std::uint16_t rx_queues = 1;
  std::uint16_t tx_queues = 0;  // 0: one per worker (the minimum: TX queues are never shared)
  std::uint16_t rx_descriptors = 1024;
  std::uint16_t tx_descriptors = 1024;
  std::uint16_t mtu = 1500;
  bool promiscuous = true;
  bool allmulti = false;
  std::uint32_t extra_mbufs =
      0;  // mbufs a PMD holds on its own (net_pcap infinite_rx keeps the trace)
  RssConfig rss;
};

struct WorkerConfig {
  std::vector<unsigned> lcores = {1};
  std::uint16_t burst = 32;
  std::uint32_t tx_drain_us = 100;  // partial TX bursts leave after at most this long
  // A worker whose poll-loop counter has not moved for longer is stalled: an alarm (log,
  // `show workers`, metrics; lib/engine/worker_liveness.hpp). A loop takes microseconds and
  // never sleeps; a shared CPU's scheduler tick is 4 ms and the worst descheduling the shared
  // 2-core test machines show is tens of ms, so 100 ms is no hiccup, and it is far inside
  // LACP's short timeout (3 s) that a worker no longer passing LACPDUs would end in.
  std::uint32_t stall_limit_ms = 100;
};

// How a choice is spelled in the config file; the loader parses with the table and `show`
// commands print with it, so the two never disagree.
template <typename Choice, std::size_t N>
using ChoiceNames = std::array<std::pair<std::string_view, Choice>, N>;

template <typename Choice, std::size_t N>
constexpr std::string_view name_of(Choice choice, const ChoiceNames<Choice, N>& names) {
  for (const auto& [name, value] : names) {
    if (value == choice) return name;
  }
  return "?";
}

enum class BondMode { kLacp, kStatic, kActiveBackup };
inline constexpr ChoiceNames<BondMode, 3> kBondModeNames{
    {{"lacp", BondMode::kLacp},
     {"static", BondMode::kStatic},
     {"active-backup", BondMode::kActiveBackup}}};

struct LacpSettings {
  bool fast = true;    // rate fast: ask the partner for LACPDUs every 1 s, 3 s timeout
  bool active = true;  // active: send LACPDUs unprompted; passive: only answer
  std::uint16_t system_priority = 32768;
  std::uint16_t port_priority = 255;
  std::optional<std::uint16_t> key;  // nullopt: derived from link speed
  std::uint32_t aggregate_wait_ms = 2000;
  // A member whose partner never speaks LACP is used individually, while the far end shows
  // signs of life and no LACPDU was heard for 90 s (doc/lacp.md "Fallback"). Off, as in OVS.
  bool fallback = false;
  // Which member verdicts the partner is told about, and how long a withdrawal waits for it
  // (lacp.withdraw; doc/health.md "Both ends").
  bond::WithdrawPolicy withdraw;
};

// Where a bond's congestion feedback comes from (drivers/congestion, doc/scheduler.md).
struct CongestionConfig {
  std::string source = "none";  // none, mlx5, xstats, sim
  std::uint32_t priority = 3;   // mlx5: the PFC priority of RoCE traffic
  std::string sysfs_root = "/sys/class/infiniband";
  std::vector<std::string> rdma_devices;  // mlx5: per member "mlx5_0[:port]"; default by PCI
  // mlx5: per member kernel netdev whose ethtool stats have the PFC pause counters; default by PCI
  std::vector<std::string> netdevs;
  // xstats: counter names (empty: the NIC has none)
  std::string pause_xstat = "rx_xoff_packets";
  std::string pause_duration_xstat;
  std::string discards_xstat = "rx_missed_errors";
  std::string ecn_xstat;
  std::string cnp_xstat;
  std::string tx_packets_xstat = "tx_good_packets";
  std::vector<std::uint32_t> sim_pause_permille;  // sim: paused fraction per member
  std::uint32_t pause_quanta_us = 50;  // a pause frame's length when there is no duration counter
  std::uint32_t mark_gain = 10;        // marked fraction x gain = score
};

// The AIMD feedback law of the adaptive policy (lib/sched/aimd.hpp).
struct AimdConfig {
  std::uint32_t floor_permille = 50;
  std::uint32_t ceiling_permille = 1000;
  std::uint32_t decrease_permille = 300;
  std::uint32_t increase_permille = 50;
  std::uint32_t hysteresis_permille = 30;
  std::uint32_t smoothing_permille = 500;
};

// scheduler.pfc_watchdog (lib/health/pfc_storm.hpp): off unless the key is there. Each PFC
// priority the bond uses (its own, its classes') is watched alone; a storm on priority p concerns
// the classes on p. `move`: their buckets move off the member (every class on it: the member is
// down, health pfc_storm); `drop`: the member keeps their buckets and their packets to it are
// dropped and counted (drop reason pfc_storm), as a switch's PFC watchdog drops a stormed queue.
enum class StormAction : std::uint8_t { kMove, kDrop };

struct PfcWatchdogConfig {
  bool enabled = false;
  health::PfcStormSettings settings;
  StormAction action = StormAction::kMove;
};

inline constexpr ChoiceNames<StormAction, 2> kStormActions{
    {{"move", StormAction::kMove}, {"drop", StormAction::kDrop}}};

struct SchedulerConfig {
  std::string policy = "hash";         // hash, wrr, lqf, adaptive, latency, spray
  std::vector<std::uint32_t> weights;  // per member (wrr, adaptive); empty: all 1
  std::uint32_t flowlet_gap_us = 500;  // > path delay skew (doc/scheduler.md)
  std::uint32_t period_ms = 10;
  std::uint32_t max_moves = 64;  // buckets moved per period at most
  std::uint32_t max_holds = 2;   // busy buckets held at a time (adaptive; doc/scheduler.md)
  // Every RoCE receiver behind the bond places packets out of order: spray may carry RoCEv2
  // (classify/roce_reach.hpp).
  bool out_of_order_placement = false;
  CongestionConfig congestion;
  AimdConfig aimd;
  PfcWatchdogConfig pfc_watchdog;
};

// How a bond's members get Slow Protocols frames (EtherType 0x8809: LACPDUs, markers) to the
// control thread (doc/bond.md#the-slow-protocols-path).
enum class SlowSteering {
  kAuto,  // an rte_flow rule to an RX queue of their own where the NIC takes it, else the ring
  kOn,    // the rule or nothing: start fails when a member's NIC refuses it
  kOff,   // workers divert them over a ring; no extra RX queue
};
inline constexpr ChoiceNames<SlowSteering, 3> kSlowSteeringNames{
    {{"auto", SlowSteering::kAuto}, {"on", SlowSteering::kOn}, {"off", SlowSteering::kOff}}};

// Member health (lib/health, doc/health.md): the model's settings and, per signal, the ethdev
// xstats names the generic counter source sums for it (empty: its defaults, drivers/health).
struct HealthConfig {
  health::HealthSettings settings;
  std::array<std::vector<std::string>, health::kSignalCount> xstats;
  std::array<bool, health::kSignalCount> xstats_set{};  // configured (an empty list: none)
};

// The most members a bond may have (each worker keeps a TX buffer per member in a fixed array:
// bond::kMaxMembers, which is this).
inline constexpr std::size_t kMaxBondMembers = 16;

struct BondConfig {
  std::string name;
  std::vector<std::string> members;  // port names
  BondMode mode = BondMode::kLacp;
  std::string hash = "l34";     // a flow::HashPolicy name
  std::uint32_t buckets = 256;  // power of two, 256..65536
  std::uint32_t min_links = 1;  // fewer usable members than this: the bond sends nothing
  std::string mac;              // empty: the first member's MAC
  std::uint32_t link_poll_us = 1000;
  // At stop, after the goodbye LACPDUs, take the members' links down where the PMD can
  // (rte_eth_dev_set_link_down): the far end loses carrier at once.
  bool link_down_on_stop = false;
  SlowSteering slow_steering = SlowSteering::kAuto;
  LacpSettings lacp;
  SchedulerConfig scheduler;
  HealthConfig health;
  classify::ClassifierSpec classes;  // traffic classes (doc/classes.md); none by default
  BfdConfig bfd;                     // off unless configured
  LldpSettings lldp;
};

struct CrossConnect {
  std::string a;
  std::string b;
};

struct StatsConfig {
  std::uint32_t interval_ms = 1000;  // 0 turns the periodic foreground line off
};

// The control socket braidctl attaches to (doc/console.md), and the protocol loop.
struct ControlConfig {
  std::string socket;  // "": /run/braid/<file_prefix>.sock, else /tmp/braid-<prefix>.sock; "off"
  // An LACP deadline served later than this is logged (rate-limited) and counted as late.
  std::uint32_t deadline_slack_ms = 50;
  // 1..99: the protocol loop runs SCHED_FIFO at this priority (it sleeps between deadlines);
  // 0: the process's own policy (doc/deploy.md).
  std::uint32_t protocol_rt_priority = 0;
};

// The Prometheus endpoint.
struct MetricsConfig {
  std::string listen = "127.0.0.1:9464";  // host:port, [v6]:port; "off" or port 0: no endpoint
};

// A synthetic trace braid writes before it starts its ports (the demo replays it with net_pcap).
struct TraceConfig {
  std::string path;
  std::uint32_t flows = 1024;
  std::uint32_t packets = 4096;
  std::uint16_t frame_size = 64;
  std::uint32_t seed = 1;
};

struct Config {
  std::string origin;  // file name, or "built-in demo"
  EalConfig eal;
  std::optional<TraceConfig> trace;
  std::vector<PortConfig> ports;
  std::vector<BondConfig> bonds;
  WorkerConfig workers;
  std::vector<CrossConnect> cross_connects;
  StatsConfig stats;
  ControlConfig control;
  MetricsConfig metrics;
  // What the loader accepted but advises against, one line each ("config: <file>:<line>: ...");
  // `braid --check` and start-up print them.
  std::vector<std::string> warnings;

  const PortConfig* find_port(std::string_view name) const;
  const BondConfig* find_bond(std::string_view name) const;
  // The bond a port is a member of, or nullptr.
  const BondConfig* bond_of_port(std::string_view port) const;
};

}  // namespace braid::config
