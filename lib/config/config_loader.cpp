#include "config/config_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include "config/bfd_config_loader.hpp"
#include "config/class_checks.hpp"
#include "config/classes_loader.hpp"
#include "config/config_file.hpp"
#include "config/config_validate.hpp"
#include "config/file_prefix.hpp"
#include "config/lacp_loader.hpp"
#include "config/lldp_loader.hpp"
#include "config/yaml_reader.hpp"
#include "flow/hash_policy.hpp"

namespace braid::config {
namespace {

constexpr std::uint64_t kMaxQueues = 64;
constexpr std::uint64_t kMinDescriptors = 64;
constexpr std::uint64_t kMaxDescriptors = 32768;
constexpr std::uint64_t kMinMtu = 68;  // RFC 791: every IPv4 host handles 68 bytes
constexpr std::uint64_t kMaxMtu = 9600;
constexpr std::uint64_t kMaxLcore = 1023;

std::uint8_t hex_digit(char c) {
  if (c >= '0' && c <= '9') return static_cast<std::uint8_t>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<std::uint8_t>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<std::uint8_t>(c - 'A' + 10);
  return 0xff;
}

void read_eal(const YamlReader& in, const YAML::Node& node, EalConfig& eal) {
  in.expect_map(node, "eal", {"file_prefix", "args", "main_lcore", "no_huge_memory_mb"});
  eal.file_prefix = in.get_string(node, "file_prefix", "eal", eal.file_prefix);
  if (const std::string problem = file_prefix_problem(eal.file_prefix); !problem.empty())
    in.fail(node["file_prefix"], "eal.file_prefix", problem);
  eal.main_lcore = static_cast<unsigned>(in.get_uint(node, "main_lcore", "eal", 0, kMaxLcore, 0));
  eal.no_huge_memory_mb =
      static_cast<unsigned>(in.get_uint(node, "no_huge_memory_mb", "eal", 64, 1 << 20, 512));
  if (const YAML::Node args = node["args"]; args.IsDefined()) {
    in.expect_sequence(args, "eal.args");
    for (std::size_t i = 0; i < args.size(); ++i) {
      eal.args.push_back(in.scalar(args[i], "eal.args[" + std::to_string(i) + "]"));
    }
  }
}

void read_rss(const YamlReader& in, const YAML::Node& node, const std::string& where,
              RssConfig& rss) {
  in.expect_map(node, where, {"hash", "key"});
  if (const YAML::Node hash = node["hash"]; hash.IsDefined()) {
    in.expect_sequence(hash, where + ".hash");
    rss.hash_fields.clear();
    for (std::size_t i = 0; i < hash.size(); ++i) {
      const std::string field_where = where + ".hash[" + std::to_string(i) + "]";
      std::string field = in.scalar(hash[i], field_where);
      if (!is_rss_field(field)) {
        in.fail(hash[i], field_where,
                "unknown RSS hash field \"" + field + "\" (known: " + rss_field_names() + ")");
      }
      rss.hash_fields.push_back(std::move(field));
    }
  }
  const std::string key = in.get_string(node, "key", where, "default");
  if (key == "default") {
    rss.key_kind = RssKey::kDefault;
  } else if (key == "symmetric") {
    rss.key_kind = RssKey::kSymmetric;
  } else {
    rss.key_kind = RssKey::kExplicit;
    std::string digits;
    for (char c : key) {
      if (c != ':' && c != ' ') digits += c;
    }
    bool valid = digits.size() % 2 == 0;
    for (std::size_t i = 0; valid && i < digits.size(); i += 2) {
      const std::uint8_t high = hex_digit(digits[i]);
      const std::uint8_t low = hex_digit(digits[i + 1]);
      valid = high != 0xff && low != 0xff;
      rss.key.push_back(static_cast<std::uint8_t>(high << 4 | low));
    }
    if (!valid || (rss.key.size() != 40 && rss.key.size() != 52)) {
      in.fail(node["key"], where + ".key",
              "expected \"default\", \"symmetric\" or a 40- or 52-byte key in hex, got \"" + key +
                  "\"");
    }
  }
}

PortConfig read_port(const YamlReader& in, const YAML::Node& node, std::size_t index) {
  std::string where = "ports[" + std::to_string(index) + "]";
  in.expect_map(node, where,
                {"name", "device", "rx_queues", "tx_queues", "rx_descriptors", "tx_descriptors",
                 "mtu", "promiscuous", "allmulti", "extra_mbufs", "rss"});
  PortConfig port;
  port.name = in.required_string(node, "name", where);
  where += " \"" + port.name + "\"";
  if (!is_valid_name(port.name)) {
    in.fail(node["name"], where, "names use letters, digits, '-' and '_' (1..32 characters)");
  }
  port.device = in.required_string(node, "device", where);
  port.rx_queues =
      static_cast<std::uint16_t>(in.get_uint(node, "rx_queues", where, 1, kMaxQueues, 1));
  port.tx_queues =
      static_cast<std::uint16_t>(in.get_uint(node, "tx_queues", where, 0, kMaxQueues, 0));
  port.rx_descriptors = static_cast<std::uint16_t>(
      in.get_uint(node, "rx_descriptors", where, kMinDescriptors, kMaxDescriptors, 1024));
  port.tx_descriptors = static_cast<std::uint16_t>(
      in.get_uint(node, "tx_descriptors", where, kMinDescriptors, kMaxDescriptors, 1024));
  port.mtu = static_cast<std::uint16_t>(in.get_uint(node, "mtu", where, kMinMtu, kMaxMtu, 1500));
  port.promiscuous = in.get_bool(node, "promiscuous", where, true);
  port.allmulti = in.get_bool(node, "allmulti", where, false);
  port.extra_mbufs =
      static_cast<std::uint32_t>(in.get_uint(node, "extra_mbufs", where, 0, 1u << 22, 0));
  if (const YAML::Node rss = node["rss"]; rss.IsDefined())
    read_rss(in, rss, where + ".rss", port.rss);
  return port;
}

void read_workers(const YamlReader& in, const YAML::Node& node, WorkerConfig& workers) {
  in.expect_map(node, "workers", {"lcores", "burst", "tx_drain_us", "stall_limit_ms"});
  if (const YAML::Node lcores = node["lcores"]; lcores.IsDefined()) {
    in.expect_sequence(lcores, "workers.lcores");
    workers.lcores.clear();
    for (std::size_t i = 0; i < lcores.size(); ++i) {
      YAML::Node holder;
      holder["lcore"] = lcores[i];
      workers.lcores.push_back(static_cast<unsigned>(in.get_uint(
          holder, "lcore", "workers.lcores[" + std::to_string(i) + "]", 0, kMaxLcore, 0)));
    }
  }
  workers.burst = static_cast<std::uint16_t>(in.get_uint(node, "burst", "workers", 1, 512, 32));
  workers.tx_drain_us =
      static_cast<std::uint32_t>(in.get_uint(node, "tx_drain_us", "workers", 1, 1000000, 100));
  workers.stall_limit_ms = static_cast<std::uint32_t>(
      in.get_uint(node, "stall_limit_ms", "workers", 1, 60000, workers.stall_limit_ms));
}

// `key` as one of `names`; `fallback` when absent.
template <typename Choice, std::size_t N>
Choice read_choice(const YamlReader& in, const YAML::Node& node, const std::string& key,
                   const std::string& where, const ChoiceNames<Choice, N>& names, Choice fallback) {
  const std::string text = in.get_string(node, key, where, std::string(name_of(fallback, names)));
  std::string known;
  for (const auto& [name, value] : names) {
    if (name == text) return value;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  in.fail(node[key], where + "." + key,
          "unknown " + key + " \"" + text + "\" (known: " + known + ")");
}

std::vector<std::uint32_t> read_uint_list(const YamlReader& in, const YAML::Node& node,
                                          const std::string& where, std::uint64_t min,
                                          std::uint64_t max) {
  in.expect_sequence(node, where);
  std::vector<std::uint32_t> values;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item = where + "[" + std::to_string(i) + "]";
    const std::string text = in.scalar(node[i], item);
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || text[0] == '-' || value < min || value > max) {
      in.fail(node[i], item,
              "must be " + std::to_string(min) + ".." + std::to_string(max) + ", got " + text);
    }
    values.push_back(static_cast<std::uint32_t>(value));
  }
  return values;
}

// The kernel's rule for an interface name (dev_valid_name in net/core/dev.c; IFNAMSIZ is 16).
bool valid_netdev_name(const std::string& name) {
  constexpr std::size_t kMaxNetdevName = 15;
  if (name.empty() || name.size() > kMaxNetdevName || name == "." || name == "..") return false;
  return std::none_of(name.begin(), name.end(), [](char ch) {
    return ch == '/' || ch == ':' || std::isspace(static_cast<unsigned char>(ch)) != 0;
  });
}

void read_congestion(const YamlReader& in, const YAML::Node& node, const std::string& where,
                     std::size_t members, CongestionConfig& out) {
  in.expect_map(node, where,
                {"source", "priority", "sysfs_root", "rdma_devices", "netdevs", "pause_xstat",
                 "pause_duration_xstat", "discards_xstat", "ecn_xstat", "cnp_xstat",
                 "tx_packets_xstat", "sim_pause_permille", "pause_quanta_us", "mark_gain"});
  out.source = in.get_string(node, "source", where, "none");
  if (out.source != "none" && out.source != "mlx5" && out.source != "xstats" &&
      out.source != "sim") {
    in.fail(node["source"], where + ".source",
            "unknown source \"" + out.source + "\" (known: none, mlx5, xstats, sim)");
  }
  out.priority = static_cast<std::uint32_t>(in.get_uint(node, "priority", where, 0, 7, 3));
  out.sysfs_root = in.get_string(node, "sysfs_root", where, out.sysfs_root);
  if (const YAML::Node devices = node["rdma_devices"]; devices.IsDefined()) {
    in.expect_sequence(devices, where + ".rdma_devices");
    for (std::size_t i = 0; i < devices.size(); ++i)
      out.rdma_devices.push_back(in.scalar(devices[i], where + ".rdma_devices"));
  }
  if (const YAML::Node netdevs = node["netdevs"]; netdevs.IsDefined()) {
    in.expect_sequence(netdevs, where + ".netdevs");
    if (netdevs.size() > members) {
      in.fail(netdevs, where + ".netdevs",
              "has more entries than the bond has members (" + std::to_string(members) + ")");
    }
    for (std::size_t i = 0; i < netdevs.size(); ++i) {
      const std::string item = where + ".netdevs[" + std::to_string(i) + "]";
      std::string name = in.scalar(netdevs[i], item);
      if (!name.empty() && !valid_netdev_name(name)) {
        in.fail(netdevs[i], item,
                "\"" + name +
                    "\" is not a Linux netdev name (1..15 characters, none of '/', ':' or "
                    "whitespace, not . or ..; \"\" finds the member's by PCI address)");
      }
      out.netdevs.push_back(std::move(name));
    }
  }
  out.pause_xstat = in.get_string(node, "pause_xstat", where, out.pause_xstat);
  out.pause_duration_xstat = in.get_string(node, "pause_duration_xstat", where, "");
  out.discards_xstat = in.get_string(node, "discards_xstat", where, out.discards_xstat);
  out.ecn_xstat = in.get_string(node, "ecn_xstat", where, "");
  out.cnp_xstat = in.get_string(node, "cnp_xstat", where, "");
  out.tx_packets_xstat = in.get_string(node, "tx_packets_xstat", where, out.tx_packets_xstat);
  if (const YAML::Node pause = node["sim_pause_permille"]; pause.IsDefined()) {
    out.sim_pause_permille = read_uint_list(in, pause, where + ".sim_pause_permille", 0, 1000);
    if (out.sim_pause_permille.size() > members) {
      in.fail(pause, where + ".sim_pause_permille",
              "has more entries than the bond has members (" + std::to_string(members) + ")");
    }
  }
  out.pause_quanta_us =
      static_cast<std::uint32_t>(in.get_uint(node, "pause_quanta_us", where, 1, 100000, 50));
  out.mark_gain = static_cast<std::uint32_t>(in.get_uint(node, "mark_gain", where, 1, 1000, 10));
}

void read_scheduler(const YamlReader& in, const YAML::Node& node, const std::string& where,
                    std::size_t members, SchedulerConfig& out) {
  in.expect_map(node, where,
                {"policy", "weights", "flowlet_gap_us", "period_ms", "max_moves", "max_holds",
                 "out_of_order_placement", "congestion", "aimd", "pfc_watchdog"});
  out.policy = in.get_string(node, "policy", where, "hash");
  if (!is_policy_name(out.policy)) {
    in.fail(node["policy"], where + ".policy",
            "unknown policy \"" + out.policy + "\" (known: " + kPolicyNames + ")");
  }
  if (const YAML::Node weights = node["weights"]; weights.IsDefined()) {
    out.weights = read_uint_list(in, weights, where + ".weights", 1, 1000);
    if (out.weights.size() != members) {
      in.fail(weights, where + ".weights",
              "needs one weight per member (" + std::to_string(members) + "), got " +
                  std::to_string(out.weights.size()));
    }
  }
  out.flowlet_gap_us =
      static_cast<std::uint32_t>(in.get_uint(node, "flowlet_gap_us", where, 1, 1000000, 500));
  out.period_ms = static_cast<std::uint32_t>(in.get_uint(node, "period_ms", where, 1, 10000, 10));
  out.max_moves = static_cast<std::uint32_t>(in.get_uint(node, "max_moves", where, 1, 65536, 64));
  out.max_holds = static_cast<std::uint32_t>(in.get_uint(node, "max_holds", where, 0, 64, 2));
  out.out_of_order_placement = in.get_bool(node, "out_of_order_placement", where, false);
  if (const YAML::Node congestion = node["congestion"]; congestion.IsDefined()) {
    read_congestion(in, congestion, where + ".congestion", members, out.congestion);
  }
  if (const YAML::Node watchdog = node["pfc_watchdog"]; watchdog.IsDefined()) {
    const std::string at = where + ".pfc_watchdog";
    in.expect_map(watchdog, at, {"storm_detect_ms", "storm_restore_ms", "action"});
    out.pfc_watchdog.enabled = true;
    health::PfcStormSettings& w = out.pfc_watchdog.settings;
    w.storm_detect_ms = static_cast<std::uint32_t>(in.get_uint(
        watchdog, "storm_detect_ms", at, health::kMinStormMs, health::kMaxStormDetectMs, 100));
    w.storm_restore_ms = static_cast<std::uint32_t>(in.get_uint(
        watchdog, "storm_restore_ms", at, health::kMinStormMs, health::kMaxStormRestoreMs, 200));
    out.pfc_watchdog.action =
        read_choice(in, watchdog, "action", at, kStormActions, StormAction::kMove);
  }
  if (const YAML::Node aimd = node["aimd"]; aimd.IsDefined()) {
    const std::string at = where + ".aimd";
    in.expect_map(aimd, at,
                  {"floor_permille", "ceiling_permille", "decrease_permille", "increase_permille",
                   "hysteresis_permille", "smoothing_permille"});
    AimdConfig& a = out.aimd;
    a.floor_permille =
        static_cast<std::uint32_t>(in.get_uint(aimd, "floor_permille", at, 1, 1000, 50));
    a.ceiling_permille =
        static_cast<std::uint32_t>(in.get_uint(aimd, "ceiling_permille", at, 1, 1000, 1000));
    if (a.floor_permille > a.ceiling_permille) {
      in.fail(aimd, at, "floor_permille must not exceed ceiling_permille");
    }
    a.decrease_permille =
        static_cast<std::uint32_t>(in.get_uint(aimd, "decrease_permille", at, 1, 999, 300));
    a.increase_permille =
        static_cast<std::uint32_t>(in.get_uint(aimd, "increase_permille", at, 1, 1000, 50));
    a.hysteresis_permille =
        static_cast<std::uint32_t>(in.get_uint(aimd, "hysteresis_permille", at, 0, 500, 30));
    a.smoothing_permille =
        static_cast<std::uint32_t>(in.get_uint(aimd, "smoothing_permille", at, 1, 1000, 500));
  }
}

// A map's keys in file order, for maps keyed by names (health.signals, health.xstats).
std::vector<std::pair<std::string, YAML::Node>> named_entries(const YamlReader& in,
                                                              const YAML::Node& node,
                                                              const std::string& where) {
  if (!node.IsMap()) in.fail(node, where, "expected a map");
  std::vector<std::pair<std::string, YAML::Node>> entries;
  for (const auto& entry : node) {
    std::string name = in.scalar(entry.first, where);
    for (const auto& [seen, value] : entries) {
      if (seen == name) in.fail(entry.first, where, "duplicate key \"" + name + "\"");
    }
    entries.emplace_back(std::move(name), entry.second);
  }
  return entries;
}

health::Signal read_signal_name(const YamlReader& in, const YAML::Node& node,
                                const std::string& where, const std::string& name) {
  if (const std::optional<health::Signal> signal = health::signal_from_string(name)) return *signal;
  std::string known;
  for (std::size_t i = 0; i < health::kSignalCount; ++i)
    known += (i == 0 ? "" : ", ") + std::string(health::to_string(static_cast<health::Signal>(i)));
  in.fail(node, where, "unknown signal \"" + name + "\" (known: " + known + ")");
}

// A duration key in `unit_ns` units (ms, s) as nanoseconds; `current_ns` when absent.
std::uint64_t get_duration_ns(const YamlReader& in, const YAML::Node& node, std::string_view key,
                              const std::string& where, std::uint64_t min_units,
                              std::uint64_t max_units, std::uint64_t current_ns,
                              std::uint64_t unit_ns) {
  return in.get_uint(node, key, where, min_units, max_units, current_ns / unit_ns) * unit_ns;
}

void read_health(const YamlReader& in, const YAML::Node& node, const std::string& where,
                 HealthConfig& out) {
  using health::kNsPerMs;
  using health::kNsPerSecond;
  in.expect_map(node, where,
                {"up_delay_ms", "down_delay_ms", "degraded_weight_permille", "window_s",
                 "dampening", "signals", "xstats"});
  health::HealthSettings& settings = out.settings;
  settings.up_delay_ns =
      get_duration_ns(in, node, "up_delay_ms", where, 0, 600'000, settings.up_delay_ns, kNsPerMs);
  settings.down_delay_ns = get_duration_ns(in, node, "down_delay_ms", where, 0, 600'000,
                                           settings.down_delay_ns, kNsPerMs);
  settings.degraded_weight_permille = static_cast<std::uint32_t>(in.get_uint(
      node, "degraded_weight_permille", where, 0, 1000, settings.degraded_weight_permille));
  settings.window_ns =
      get_duration_ns(in, node, "window_s", where, 1, 3600, settings.window_ns, kNsPerSecond);
  if (const YAML::Node damp = node["dampening"]; damp.IsDefined()) {
    const std::string at = where + ".dampening";
    in.expect_map(damp, at,
                  {"penalty_per_flap", "suppress_threshold", "reuse_threshold", "half_life_s",
                   "max_suppress_s"});
    health::DampeningSettings& d = settings.dampening;
    d.penalty_per_flap = static_cast<std::uint32_t>(
        in.get_uint(damp, "penalty_per_flap", at, 0, 1'000'000, d.penalty_per_flap));
    d.suppress_threshold = static_cast<std::uint32_t>(
        in.get_uint(damp, "suppress_threshold", at, 1, 10'000'000, d.suppress_threshold));
    d.reuse_threshold = static_cast<std::uint32_t>(
        in.get_uint(damp, "reuse_threshold", at, 1, 10'000'000, d.reuse_threshold));
    d.half_life_ns =
        get_duration_ns(in, damp, "half_life_s", at, 1, 86'400, d.half_life_ns, kNsPerSecond);
    d.max_suppress_ns =
        get_duration_ns(in, damp, "max_suppress_s", at, 1, 86'400, d.max_suppress_ns, kNsPerSecond);
    if (const std::string error = health::settings_error(d); !error.empty())
      in.fail(damp, at, error);
  }
  if (const YAML::Node signals = node["signals"]; signals.IsDefined()) {
    for (const auto& [name, entry] : named_entries(in, signals, where + ".signals")) {
      const std::string at = where + ".signals." + name;
      const health::Signal signal = read_signal_name(in, entry, where + ".signals", name);
      in.expect_map(entry, at,
                    {"degrade_ppm", "recover_ppm", "min_frames", "recover_hold_s", "judged"});
      health::SignalSettings& s = settings.signals[static_cast<std::size_t>(signal)];
      s.degrade_ppm = in.get_uint(entry, "degrade_ppm", at, 1, health::kPpm, s.degrade_ppm);
      s.recover_ppm = in.get_uint(entry, "recover_ppm", at, 0, health::kPpm, s.recover_ppm);
      s.min_frames = in.get_uint(entry, "min_frames", at, 1, UINT32_MAX, s.min_frames);
      s.recover_hold_ns = get_duration_ns(in, entry, "recover_hold_s", at, 0, 86'400,
                                          s.recover_hold_ns, kNsPerSecond);
      s.judged = in.get_bool(entry, "judged", at, s.judged);
      if (const std::string error = health::settings_error(signal, s); !error.empty())
        in.fail(entry, at, error);
    }
  }
  if (const YAML::Node xstats = node["xstats"]; xstats.IsDefined()) {
    for (const auto& [name, entry] : named_entries(in, xstats, where + ".xstats")) {
      const std::string at = where + ".xstats." + name;
      const auto index =
          static_cast<std::size_t>(read_signal_name(in, entry, where + ".xstats", name));
      in.expect_sequence(entry, at);
      out.xstats[index].clear();
      out.xstats_set[index] = true;
      for (std::size_t i = 0; i < entry.size(); ++i)
        out.xstats[index].push_back(in.scalar(entry[i], at + "[" + std::to_string(i) + "]"));
    }
  }
  if (const std::string error = health::settings_error(settings); !error.empty())
    in.fail(node, where, error);
}

BondConfig read_bond(const YamlReader& in, const YAML::Node& node, std::size_t index) {
  std::string where = "bonds[" + std::to_string(index) + "]";
  in.expect_map(node, where,
                {"name", "members", "mode", "hash", "buckets", "min_links", "mac", "link_poll_us",
                 "link_down_on_stop", "slow_steering", "lacp", "scheduler", "health", "classes",
                 "bfd", "lldp"});
  BondConfig bond;
  bond.name = in.required_string(node, "name", where);
  where += " \"" + bond.name + "\"";
  if (!is_valid_name(bond.name)) {
    in.fail(node["name"], where, "names use letters, digits, '-' and '_' (1..32 characters)");
  }
  const YAML::Node members = node["members"];
  if (!members.IsDefined()) in.fail(node, where, "missing required key \"members\"");
  in.expect_sequence(members, where + ".members");
  for (std::size_t i = 0; i < members.size(); ++i) {
    bond.members.push_back(in.scalar(members[i], where + ".members[" + std::to_string(i) + "]"));
  }
  bond.mode = read_choice(in, node, "mode", where, kBondModeNames, BondMode::kLacp);
  bond.hash = in.get_string(node, "hash", where, "l34");
  if (const flow::HashPolicyParse policy = flow::parse_hash_policy(bond.hash); !policy.ok()) {
    in.fail(node["hash"], where + ".hash", policy.error);
  }
  bond.buckets = static_cast<std::uint32_t>(in.get_uint(node, "buckets", where, 256, 65536, 256));
  if ((bond.buckets & (bond.buckets - 1)) != 0) {
    in.fail(node["buckets"], where + ".buckets",
            "must be a power of two (256, 512, ... 65536), got " + std::to_string(bond.buckets));
  }
  bond.min_links = static_cast<std::uint32_t>(in.get_uint(node, "min_links", where, 1, 64, 1));
  bond.mac = in.get_string(node, "mac", where, "");
  if (!bond.mac.empty() && !is_unicast_mac(bond.mac)) {
    in.fail(node["mac"], where + ".mac",
            "expected a unicast MAC like 02:00:00:00:00:01, got \"" + bond.mac + "\"");
  }
  bond.link_poll_us =
      static_cast<std::uint32_t>(in.get_uint(node, "link_poll_us", where, 10, 1000000, 1000));
  bond.link_down_on_stop = in.get_bool(node, "link_down_on_stop", where, false);
  bond.slow_steering =
      read_choice(in, node, "slow_steering", where, kSlowSteeringNames, SlowSteering::kAuto);
  if (const YAML::Node lacp = node["lacp"]; lacp.IsDefined()) {
    if (bond.mode != BondMode::kLacp) {
      in.fail(lacp, where + ".lacp", "LACP settings apply only to mode lacp");
    }
    read_lacp(in, lacp, where + ".lacp", bond.lacp);
  }
  if (const YAML::Node scheduler = node["scheduler"]; scheduler.IsDefined()) {
    read_scheduler(in, scheduler, where + ".scheduler", bond.members.size(), bond.scheduler);
  }
  if (const YAML::Node health = node["health"]; health.IsDefined())
    read_health(in, health, where + ".health", bond.health);
  if (const YAML::Node classes = node["classes"]; classes.IsDefined())
    bond.classes = read_classes(in, classes, where + ".classes", bond.members);
  check_classes_with_scheduler(in, node, where, bond);
  if (const YAML::Node bfd = node["bfd"]; bfd.IsDefined())
    bond.bfd = read_bfd(in, bfd, where + ".bfd", bond.members);
  if (const YAML::Node lldp = node["lldp"]; lldp.IsDefined())
    read_lldp(in, lldp, where + ".lldp", bond.lldp);
  return bond;
}

void read_cross_connects(const YamlReader& in, const YAML::Node& node, Config& config) {
  in.expect_sequence(node, "cross_connect");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string where = "cross_connect[" + std::to_string(i) + "]";
    const YAML::Node pair = node[i];
    if (!pair.IsSequence() || pair.size() != 2) {
      in.fail(pair, where, "expected a pair of port names, e.g. [p0, p1]");
    }
    config.cross_connects.push_back({in.scalar(pair[0], where), in.scalar(pair[1], where)});
  }
}

void read_trace(const YamlReader& in, const YAML::Node& node, Config& config) {
  in.expect_map(node, "trace", {"path", "flows", "packets", "frame_size", "seed"});
  TraceConfig trace;
  trace.path = in.required_string(node, "path", "trace");
  trace.flows = static_cast<std::uint32_t>(in.get_uint(node, "flows", "trace", 1, 1u << 24, 1024));
  trace.packets =
      static_cast<std::uint32_t>(in.get_uint(node, "packets", "trace", 1, 1u << 24, 4096));
  trace.frame_size =
      static_cast<std::uint16_t>(in.get_uint(node, "frame_size", "trace", 64, 9018, 64));
  trace.seed = static_cast<std::uint32_t>(in.get_uint(node, "seed", "trace", 0, UINT32_MAX, 1));
  config.trace = trace;
}

// A device string may name the generated trace as {trace}, so the path is written once.
void expand_trace_path(const YamlReader& in, const YAML::Node& node, const Config& config,
                       PortConfig& port) {
  constexpr std::string_view kPlaceholder = "{trace}";
  const std::size_t at = port.device.find(kPlaceholder);
  if (at == std::string::npos) return;
  if (!config.trace) {
    in.fail(node["device"], "ports \"" + port.name + "\".device",
            "uses {trace} but the config has no trace section");
  }
  port.device.replace(at, kPlaceholder.size(), config.trace->path);
}

void read_control(const YamlReader& in, const YAML::Node& node, ControlConfig& control) {
  in.expect_map(node, "control", {"socket", "deadline_slack_ms", "protocol_rt_priority"});
  control.socket = in.get_string(node, "socket", "control", control.socket);
  control.deadline_slack_ms = static_cast<std::uint32_t>(
      in.get_uint(node, "deadline_slack_ms", "control", 1, 10000, control.deadline_slack_ms));
  control.protocol_rt_priority = static_cast<std::uint32_t>(
      in.get_uint(node, "protocol_rt_priority", "control", 0, 99, control.protocol_rt_priority));
  constexpr std::size_t kMaxUnixPath = 107;  // sizeof(sockaddr_un::sun_path) - 1
  if (control.socket.size() > kMaxUnixPath)
    in.fail(node["socket"], "control.socket",
            "a UNIX socket path has at most " + std::to_string(kMaxUnixPath) + " bytes");
}

// "host:port", "[v6]:port", ":port" or "off"; the port 0..65535 (0: off).
void read_metrics(const YamlReader& in, const YAML::Node& node, MetricsConfig& metrics) {
  in.expect_map(node, "metrics", {"listen"});
  metrics.listen = in.get_string(node, "listen", "metrics", metrics.listen);
  if (metrics.listen == "off" || metrics.listen.empty()) return;
  const std::size_t colon = metrics.listen.rfind(':');
  const std::string port = colon == std::string::npos ? "" : metrics.listen.substr(colon + 1);
  const bool bracketed =
      metrics.listen.front() != '[' ||
      (colon != std::string::npos && colon > 0 && metrics.listen[colon - 1] == ']');
  bool valid = !port.empty() && port.size() <= 5 && bracketed;
  for (char c : port)
    valid = valid && c >= '0' && c <= '9';
  if (!valid || std::stoul(port) > 65535) {
    in.fail(node["listen"], "metrics.listen",
            "expected host:port (127.0.0.1:9464, [::1]:9464) or \"off\", got \"" + metrics.listen +
                "\"");
  }
}

// The whole config read through `in` (parse_config, and config_limits with its recorder).
Config parse_with(YamlReader& in, std::string_view yaml_text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
    if (const std::optional<YAML::Mark> second = second_document(yaml_text)) {
      throw ConfigError("config: " + origin + ":" + std::to_string(second->line + 1) +
                        ": a second YAML document starts here: a config file holds one; merge "
                        "them or delete one");
    }
  } catch (const YAML::Exception& error) {
    throw ConfigError("config: " + origin + ":" + std::to_string(error.mark.line + 1) +
                      ": not valid YAML: " + error.msg);
  }
  if (!root.IsDefined() || root.IsNull())
    throw ConfigError("config: " + origin + ": file is empty");
  in.expect_map(root, "top level",
                {"eal", "trace", "ports", "bonds", "workers", "cross_connect", "stats", "control",
                 "metrics"});

  Config config;
  config.origin = origin;
  in.record_warnings(&config.warnings);
  if (const YAML::Node eal = root["eal"]; eal.IsDefined()) read_eal(in, eal, config.eal);
  if (const YAML::Node trace = root["trace"]; trace.IsDefined()) read_trace(in, trace, config);
  const YAML::Node ports = root["ports"];
  if (!ports.IsDefined()) in.fail(root, "top level", "missing required key \"ports\"");
  in.expect_sequence(ports, "ports");
  for (std::size_t i = 0; i < ports.size(); ++i) {
    PortConfig port = read_port(in, ports[i], i);
    expand_trace_path(in, ports[i], config, port);
    config.ports.push_back(std::move(port));
  }
  if (const YAML::Node bonds = root["bonds"]; bonds.IsDefined()) {
    in.expect_sequence(bonds, "bonds");
    for (std::size_t i = 0; i < bonds.size(); ++i)
      config.bonds.push_back(read_bond(in, bonds[i], i));
  }
  if (const YAML::Node workers = root["workers"]; workers.IsDefined()) {
    read_workers(in, workers, config.workers);
  }
  if (const YAML::Node cross = root["cross_connect"]; cross.IsDefined()) {
    read_cross_connects(in, cross, config);
  }
  if (const YAML::Node stats = root["stats"]; stats.IsDefined()) {
    in.expect_map(stats, "stats", {"interval_ms"});
    config.stats.interval_ms =
        static_cast<std::uint32_t>(in.get_uint(stats, "interval_ms", "stats", 0, 3600000, 1000));
  }
  if (const YAML::Node control = root["control"]; control.IsDefined())
    read_control(in, control, config.control);
  if (const YAML::Node metrics = root["metrics"]; metrics.IsDefined())
    read_metrics(in, metrics, config.metrics);
  validate(config);
  return config;
}

}  // namespace

Config parse_config(std::string_view yaml_text, std::string origin) {
  YamlReader in(origin);
  return parse_with(in, yaml_text, origin);
}

std::vector<UintLimit> config_limits(std::string_view yaml_text) {
  YamlReader in("limits reference");
  std::vector<UintLimit> limits;
  in.record_limits(&limits);
  parse_with(in, yaml_text, "limits reference");
  std::sort(limits.begin(), limits.end(),
            [](const UintLimit& a, const UintLimit& b) { return a.path < b.path; });
  return limits;
}

Config load_config_file(const std::string& path) {
  return parse_config(read_config_file(path), path);
}

const BondConfig* Config::find_bond(std::string_view name) const {
  for (const BondConfig& bond : bonds) {
    if (bond.name == name) return &bond;
  }
  return nullptr;
}

const BondConfig* Config::bond_of_port(std::string_view port) const {
  for (const BondConfig& bond : bonds) {
    for (const std::string& member : bond.members) {
      if (member == port) return &bond;
    }
  }
  return nullptr;
}

const PortConfig* Config::find_port(std::string_view name) const {
  for (const PortConfig& port : ports) {
    if (port.name == name) return &port;
  }
  return nullptr;
}

}  // namespace braid::config
