#include <gtest/gtest.h>

#include <ctime>
#include <string>

#include "config/config_loader.hpp"
#include "config/demo_config.hpp"
#include "config_text.hpp"

namespace braid::config {
namespace {

constexpr const char* kMinimal = R"(
ports:
  - name: p0
    device: net_null0
  - name: p1
    device: net_null1
cross_connect:
  - [p0, p1]
)";

TEST(Config, MinimalFileGetsDefaults) {
  const Config config = parse_config(kMinimal, "test.yaml");
  ASSERT_EQ(config.ports.size(), 2u);
  EXPECT_EQ(config.ports[0].rx_queues, 1);
  EXPECT_EQ(config.ports[0].tx_queues, 0);
  EXPECT_EQ(config.ports[0].rx_descriptors, 1024);
  EXPECT_EQ(config.ports[0].mtu, 1500);
  EXPECT_TRUE(config.ports[0].promiscuous);
  EXPECT_EQ(config.workers.lcores, std::vector<unsigned>{1});
  EXPECT_EQ(config.workers.burst, 32);
  EXPECT_EQ(config.eal.file_prefix, "braid");
  EXPECT_EQ(config.stats.interval_ms, 1000u);
  ASSERT_EQ(config.cross_connects.size(), 1u);
  EXPECT_EQ(config.cross_connects[0].b, "p1");
}

TEST(Config, FullFileParses) {
  const Config config = parse_config(R"(
eal:
  file_prefix: gw1
  args: ["--log-level=braid:debug"]
  main_lcore: 0
  no_huge_memory_mb: 1024
ports:
  - name: up0
    device: "0000:3b:00.0,txq_inline_max=128"
    rx_queues: 4
    tx_queues: 4
    rx_descriptors: 4096
    tx_descriptors: 4096
    mtu: 9000
    promiscuous: false
    allmulti: true
    rss:
      hash: [ipv4, tcp]
      key: symmetric
  - name: up1
    device: net_ring0
    rss:
      key: 6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa
workers:
  lcores: [1, 2, 3]
  burst: 64
  tx_drain_us: 50
cross_connect:
  - [up0, up1]
stats:
  interval_ms: 0
)",
                                     "full.yaml");
  EXPECT_EQ(config.eal.file_prefix, "gw1");
  EXPECT_EQ(config.eal.args.size(), 1u);
  EXPECT_EQ(config.ports[0].mtu, 9000);
  EXPECT_EQ(config.ports[0].rss.key_kind, RssKey::kSymmetric);
  EXPECT_EQ(config.ports[0].rss.hash_fields, (std::vector<std::string>{"ipv4", "tcp"}));
  EXPECT_EQ(config.ports[1].rss.key_kind, RssKey::kExplicit);
  ASSERT_EQ(config.ports[1].rss.key.size(), 40u);
  EXPECT_EQ(config.ports[1].rss.key[0], 0x6d);
  EXPECT_EQ(config.ports[1].rss.key[39], 0xfa);
  EXPECT_EQ(config.workers.lcores.size(), 3u);
  EXPECT_EQ(config.stats.interval_ms, 0u);
}

TEST(Config, BondDefaultsAndSettings) {
  const Config config = parse_config(R"(
ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: "0000:3b:00.0"}
  - {name: m1, device: "0000:3b:00.1"}
  - {name: h2, device: net_ring1}
  - {name: b0, device: "0000:af:00.0"}
bonds:
  - name: uplink
    members: [m0, m1]
  - name: backup
    members: [b0]
    mode: active-backup
    hash: toeplitz-sym
    buckets: 4096
    mac: "02:00:00:00:00:aa"
    link_poll_us: 100
    slow_steering: off
cross_connect: [[host, uplink], [h2, backup]]
)",
                                     "bonds.yaml");
  ASSERT_EQ(config.bonds.size(), 2u);
  const BondConfig& uplink = config.bonds[0];
  EXPECT_EQ(uplink.mode, BondMode::kLacp);
  EXPECT_EQ(uplink.hash, "l34");
  EXPECT_EQ(uplink.buckets, 256u);
  EXPECT_EQ(uplink.min_links, 1u);
  EXPECT_TRUE(uplink.lacp.fast);
  EXPECT_TRUE(uplink.lacp.active);
  EXPECT_FALSE(uplink.lacp.fallback);  // off, as in Open vSwitch (doc/lacp.md)
  EXPECT_FALSE(uplink.link_down_on_stop);
  EXPECT_FALSE(uplink.lacp.key.has_value());
  EXPECT_EQ(uplink.lacp.aggregate_wait_ms, 2000u);
  EXPECT_EQ(uplink.slow_steering, SlowSteering::kAuto);
  const BondConfig& backup = config.bonds[1];
  EXPECT_EQ(backup.slow_steering, SlowSteering::kOff);
  EXPECT_EQ(backup.mode, BondMode::kActiveBackup);
  EXPECT_EQ(backup.buckets, 4096u);
  EXPECT_EQ(backup.mac, "02:00:00:00:00:aa");
  EXPECT_EQ(config.bond_of_port("m1"), &uplink);
  EXPECT_EQ(config.bond_of_port("host"), nullptr);
}

TEST(Config, LacpSettings) {
  const Config config = parse_config(R"(
ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: net_ring1}
bonds:
  - name: up
    members: [m0]
    lacp: {rate: slow, activity: passive, system_priority: 100, port_priority: 7, key: 33,
           aggregate_wait_ms: 500, fallback: false}
cross_connect: [[host, up]]
)",
                                     "lacp.yaml");
  const LacpSettings& lacp = config.bonds[0].lacp;
  EXPECT_FALSE(lacp.fast);
  EXPECT_FALSE(lacp.active);
  EXPECT_EQ(lacp.system_priority, 100);
  EXPECT_EQ(lacp.port_priority, 7);
  EXPECT_EQ(lacp.key, 33);
  EXPECT_EQ(lacp.aggregate_wait_ms, 500u);
  EXPECT_FALSE(lacp.fallback);
  // Without lacp.withdraw: receive-side degradation withdraws, cabling does not, 1 s.
  EXPECT_EQ(lacp.withdraw.degraded, bond::WithdrawPolicy::Degraded::kReceive);
  EXPECT_FALSE(lacp.withdraw.cabling);
  EXPECT_EQ(lacp.withdraw.patience_ns, 1'000'000'000u);
}

TEST(Config, LacpWithdraw) {
  const Config config = parse_config(R"(
ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: net_ring1}
bonds:
  - name: up
    members: [m0]
    lacp: {withdraw: {degraded: never, cabling: true, patience_ms: 1500}}
cross_connect: [[host, up]]
)",
                                     "withdraw.yaml");
  const bond::WithdrawPolicy& withdraw = config.bonds[0].lacp.withdraw;
  EXPECT_EQ(withdraw.degraded, bond::WithdrawPolicy::Degraded::kNever);
  EXPECT_TRUE(withdraw.cabling);
  EXPECT_EQ(withdraw.patience_ns, 1'500'000'000u);
  EXPECT_TRUE(config.bonds[0].lacp.fast);  // the other keys keep their defaults
}

TEST(Config, SlowSteeringValues) {
  for (const auto& [text, expected] :
       {std::pair{"auto", SlowSteering::kAuto}, std::pair{"on", SlowSteering::kOn},
        std::pair{"off", SlowSteering::kOff}}) {
    const Config config = parse_config(std::string("ports:\n  - {name: host, device: a}\n"
                                                   "  - {name: m0, device: b}\n"
                                                   "bonds:\n  - {name: up, members: [m0], "
                                                   "slow_steering: ") +
                                           text + "}\ncross_connect: [[host, up]]\n",
                                       "steering.yaml");
    EXPECT_EQ(config.bonds[0].slow_steering, expected) << text;
  }
}

TEST(Config, DemoConfigIsValid) {
  const Config config = parse_config(demo_config_text(), "demo");
  ASSERT_TRUE(config.trace.has_value());
  // {trace} in a device string is replaced by the trace path.
  EXPECT_NE(config.ports[0].device.find(config.trace->path), std::string::npos);
  EXPECT_EQ(config.ports[0].device.find("{trace}"), std::string::npos);
}

struct BadCase {
  const char* name;
  const char* yaml;
  const char* expected;  // a substring of the error
};

class BadConfig : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadConfig, IsRejectedWithAClearMessage) {
  const std::string error = error_of(GetParam().yaml);
  ASSERT_FALSE(error.empty()) << "accepted: " << GetParam().yaml;
  EXPECT_NE(error.find("config: test.yaml"), std::string::npos) << error;
  EXPECT_NE(error.find(GetParam().expected), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadConfig,
    ::testing::Values(
        BadCase{"empty", "", "file is empty"}, BadCase{"not_yaml", "ports: [", "not valid YAML"},
        BadCase{"no_ports", "workers: {lcores: [1]}\n", "missing required key \"ports\""},
        BadCase{"unknown_top", "portz: []\n", "unknown key \"portz\""},
        BadCase{"unknown_port_key", "ports:\n  - {name: p0, device: net_null0, rx_qeues: 2}\n",
                "test.yaml:2: ports[0]: unknown key \"rx_qeues\""},
        BadCase{"rx_queues_zero", "ports:\n  - {name: p2, device: d, rx_queues: 0}\n",
                "ports[0] \"p2\".rx_queues: must be 1..64, got 0"},
        BadCase{"rx_queues_text", "ports:\n  - {name: p2, device: d, rx_queues: many}\n",
                "expected a whole number 1..64, got \"many\""},
        BadCase{"negative", "ports:\n  - {name: p2, device: d, mtu: -1}\n", "mtu"},
        BadCase{"mtu_high", "ports:\n  - {name: p2, device: d, mtu: 65000}\n", "must be 68..9600"},
        BadCase{"no_device", "ports:\n  - {name: p0}\n", "missing required key \"device\""},
        BadCase{"bad_name", "ports:\n  - {name: \"p 0\", device: d}\n", "names use letters"},
        BadCase{"bad_bool", "ports:\n  - {name: p0, device: d, promiscuous: maybe}\n",
                "expected true or false"},
        BadCase{"bad_rss_field", "ports:\n  - {name: p0, device: d, rss: {hash: [ipv5]}}\n",
                "unknown RSS hash field \"ipv5\""},
        BadCase{"bad_rss_key", "ports:\n  - {name: p0, device: d, rss: {key: abcd}}\n",
                "40- or 52-byte key"},
        BadCase{"duplicate_port",
                "ports:\n  - {name: p0, device: a}\n  - {name: p0, device: b}\n"
                "cross_connect: [[p0, p0]]\n",
                "duplicate port name"},
        BadCase{"duplicate_device",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: a}\n"
                "cross_connect: [[p0, p1]]\n",
                "already used by another port"},
        BadCase{"unknown_peer",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0, p2]]\n",
                "\"p2\" is not a configured port or bond (known: p0, p1)"},
        BadCase{"self_connect", "ports:\n  - {name: p0, device: a}\ncross_connect: [[p0, p0]]\n",
                "already in another pair"},
        BadCase{"not_a_pair",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0]]\n",
                "expected a pair of port names"},
        BadCase{"unused_port",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "  - {name: p2, device: c}\ncross_connect: [[p0, p1]]\n",
                "port is not used by anything"},
        BadCase{"no_cross_connect", "ports:\n  - {name: p0, device: a}\n",
                "at least one pair of ports"},
        BadCase{"main_lcore_worker",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0, p1]]\nworkers: {lcores: [0]}\n",
                "is the main lcore"},
        BadCase{"duplicate_lcore",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0, p1]]\nworkers: {lcores: [1, 1]}\n",
                "listed twice"},
        BadCase{"no_lcores",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0, p1]]\nworkers: {lcores: []}\n",
                "at least one worker lcore"},
        BadCase{"too_few_tx_queues",
                "ports:\n  - {name: p0, device: a, tx_queues: 1}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0, p1]]\nworkers: {lcores: [1, 2]}\n",
                "tx_queues must be at least the number of workers (2)"},
        BadCase{"trace_without_section",
                "ports:\n  - {name: p0, device: \"net_pcap0,rx_pcap={trace}\"}\n",
                "uses {trace} but the config has no trace section"},
        BadCase{"bond_unknown_member",
                "ports:\n  - {name: h, device: a}\n  - {name: m0, device: b}\n"
                "bonds:\n  - {name: up, members: [m0, m9]}\ncross_connect: [[h, up]]\n",
                "bonds[0] \"up\": member \"m9\" is not a configured port (known: h, m0)"},
        BadCase{"bond_member_twice",
                "ports:\n  - {name: h, device: a}\n  - {name: m0, device: b}\n"
                "bonds:\n  - {name: up, members: [m0]}\n  - {name: up2, members: [m0]}\n"
                "cross_connect: [[h, up]]\n",
                "is a member of more than one bond"},
        BadCase{"bond_member_cross_connected",
                "ports:\n  - {name: h, device: a}\n  - {name: m0, device: b}\n"
                "bonds:\n  - {name: up, members: [m0]}\ncross_connect: [[h, m0]]\n",
                "port \"m0\" is a member of bond \"up\": cross-connect the bond instead"},
        BadCase{"bond_unused",
                "ports:\n  - {name: h, device: a}\n  - {name: g, device: c}\n"
                "  - {name: m0, device: b}\n"
                "bonds:\n  - {name: up, members: [m0]}\ncross_connect: [[h, g]]\n",
                "bond is not used by anything"},
        BadCase{"bond_bad_mode",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "mode: roundrobin}\n",
                "unknown mode \"roundrobin\" (known: lacp, static, active-backup)"},
        BadCase{"bond_bad_hash",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "hash: layer3+4}\n",
                "hash policy \"layer3+4\" is not known"},
        BadCase{"bond_buckets_not_power_of_two",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "buckets: 300}\n",
                "must be a power of two"},
        BadCase{"bond_min_links",
                "ports:\n  - {name: h, device: a}\n  - {name: m0, device: b}\n"
                "bonds:\n  - {name: up, members: [m0], min_links: 2}\ncross_connect: [[h, up]]\n",
                "min_links 2 is more than its 1 member"},
        // Start-up refuses a 17th member (a worker's TX buffers per member are a fixed array):
        // so does --check.
        BadCase{
            "bond_too_many_members",
            "ports:\n  - {name: h, device: a}\n"
            "  - {name: m0, device: d0}\n  - {name: m1, device: d1}\n  - {name: m2, device: d2}\n  "
            "- {name: m3, device: d3}\n  - {name: m4, device: d4}\n  - {name: m5, device: d5}\n  - "
            "{name: m6, device: d6}\n  - {name: m7, device: d7}\n  - {name: m8, device: d8}\n  - "
            "{name: m9, device: d9}\n  - {name: m10, device: d10}\n  - {name: m11, device: d11}\n  "
            "- {name: m12, device: d12}\n  - {name: m13, device: d13}\n  - {name: m14, device: "
            "d14}\n  - {name: m15, device: d15}\n  - {name: m16, device: d16}\n"
            "bonds:\n  - {name: up, members: [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, "
            "m12, m13, m14, m15, m16]}\n"
            "cross_connect: [[h, up]]\n",
            "a bond has at most 16 members, this one 17 (make two bonds)"},
        BadCase{"bond_multicast_mac",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "mac: \"01:00:5e:00:00:01\"}\n",
                "expected a unicast MAC"},
        BadCase{"bond_lacp_in_static",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "mode: static, lacp: {rate: fast}}\n",
                "LACP settings apply only to mode lacp"},
        BadCase{"bond_slow_steering",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "slow_steering: always}\n",
                "bonds[0] \"up\".slow_steering: unknown slow_steering \"always\" (known: auto, "
                "on, off)"},
        BadCase{"bond_lacp_rate",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "lacp: {rate: medium}}\n",
                "expected fast or slow"},
        BadCase{"bond_withdraw_degraded",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "lacp: {withdraw: {degraded: sometimes}}}\n",
                "bonds[0] \"up\".lacp.withdraw.degraded: expected receive or always or never, got "
                "\"sometimes\""},
        BadCase{"bond_withdraw_patience",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "lacp: {withdraw: {patience_ms: 5}}}\n",
                "lacp.withdraw.patience_ms: must be 10..10000, got 5"},
        BadCase{"bond_withdraw_unknown",
                "ports:\n  - {name: m0, device: b}\nbonds:\n  - {name: up, members: [m0], "
                "lacp: {withdraw: {degrade: never}}}\n",
                "unknown key \"degrade\""},
        BadCase{"two_bonds_connected",
                "ports:\n  - {name: m0, device: a}\n  - {name: m1, device: b}\n"
                "bonds:\n  - {name: x, members: [m0]}\n  - {name: y, members: [m1]}\n"
                "cross_connect: [[x, y]]\n",
                "two bonds cannot be cross-connected"},
        BadCase{"ports_not_list", "ports: {name: p0}\n", "ports: expected a list"},
        BadCase{"burst_zero",
                "ports:\n  - {name: p0, device: a}\n  - {name: p1, device: b}\n"
                "cross_connect: [[p0, p1]]\nworkers: {burst: 0}\n",
                "workers.burst: must be 1..512"}),
    [](const ::testing::TestParamInfo<BadCase>& case_info) {
      return std::string(case_info.param.name);
    });

TEST(Config, MissingFileNamesThePath) {
  try {
    load_config_file("/nonexistent/braid.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "config: /nonexistent/braid.yaml: cannot open file: No such file or directory");
  }
}

TEST(Config, ControlAndMetricsDefaults) {
  const Config config = parse_config(kMinimal, "test.yaml");
  EXPECT_EQ(config.control.socket, "");
  EXPECT_EQ(config.metrics.listen, "127.0.0.1:9464");
}

TEST(Config, ControlAndMetricsSections) {
  const Config config = parse_config(std::string(kMinimal) + R"(
control:
  socket: /run/braid/gw1.sock
metrics:
  listen: "[::1]:9100"
)",
                                     "test.yaml");
  EXPECT_EQ(config.control.socket, "/run/braid/gw1.sock");
  EXPECT_EQ(config.metrics.listen, "[::1]:9100");
  EXPECT_EQ(parse_config(std::string(kMinimal) + "metrics:\n  listen: \"off\"\n", "t.yaml")
                .metrics.listen,
            "off");
}

TEST(Config, BadControlAndMetricsValuesNameTheKey) {
  EXPECT_EQ(error_of(std::string(kMinimal) + "metrics:\n  listen: 127.0.0.1\n"),
            "config: test.yaml:10: metrics.listen: expected host:port (127.0.0.1:9464, "
            "[::1]:9464) or \"off\", got \"127.0.0.1\"");
  EXPECT_EQ(error_of(std::string(kMinimal) + "metrics:\n  listen: \"h:70000\"\n"),
            "config: test.yaml:10: metrics.listen: expected host:port (127.0.0.1:9464, "
            "[::1]:9464) or \"off\", got \"h:70000\"");
  EXPECT_NE(error_of(std::string(kMinimal) + "control:\n  sock: /x\n").find("unknown key \"sock\""),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "control:\n  socket: /" + std::string(120, 'a') + "\n")
                .find("control.socket: a UNIX socket path has at most 107 bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace braid::config

namespace braid::config {
namespace {

TEST(Config, BondSchedulerDefaultsAndSettings) {
  const std::string ports = R"(
ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: net_ring1}
  - {name: m1, device: net_ring2}
cross_connect: [[host, uplink]]
)";
  const Config defaults =
      parse_config(ports + "bonds:\n  - {name: uplink, members: [m0, m1]}\n", "sched.yaml");
  const SchedulerConfig& plain = defaults.bonds[0].scheduler;
  EXPECT_EQ(plain.policy, "hash");
  EXPECT_EQ(plain.flowlet_gap_us, 500u);
  EXPECT_EQ(plain.period_ms, 10u);
  EXPECT_EQ(plain.max_holds, 2u);
  EXPECT_EQ(plain.congestion.source, "none");
  EXPECT_EQ(plain.aimd.floor_permille, 50u);
  EXPECT_FALSE(plain.pfc_watchdog.enabled);
  const Config config = parse_config(ports + R"(bonds:
  - name: uplink
    members: [m0, m1]
    scheduler:
      policy: adaptive
      weights: [3, 1]
      flowlet_gap_us: 200
      period_ms: 5
      max_moves: 128
      max_holds: 0
      congestion: {source: mlx5, priority: 4, rdma_devices: ["mlx5_0:1", mlx5_1], netdevs: [ens1f0np0, ""]}
      aimd: {floor_permille: 100, decrease_permille: 500, hysteresis_permille: 10}
      pfc_watchdog: {storm_detect_ms: 50}
)",
                                     "sched.yaml");
  const SchedulerConfig& s = config.bonds[0].scheduler;
  EXPECT_EQ(s.policy, "adaptive");
  EXPECT_EQ(s.weights, (std::vector<std::uint32_t>{3, 1}));
  EXPECT_EQ(s.flowlet_gap_us, 200u);
  EXPECT_EQ(s.period_ms, 5u);
  EXPECT_EQ(s.max_moves, 128u);
  EXPECT_EQ(s.max_holds, 0u);
  EXPECT_EQ(s.congestion.source, "mlx5");
  EXPECT_EQ(s.congestion.priority, 4u);
  EXPECT_EQ(s.congestion.rdma_devices, (std::vector<std::string>{"mlx5_0:1", "mlx5_1"}));
  EXPECT_EQ(s.congestion.netdevs, (std::vector<std::string>{"ens1f0np0", ""}));
  EXPECT_EQ(s.aimd.floor_permille, 100u);
  EXPECT_EQ(s.aimd.decrease_permille, 500u);
  EXPECT_EQ(s.aimd.hysteresis_permille, 10u);
  EXPECT_EQ(s.aimd.ceiling_permille, 1000u);
  EXPECT_TRUE(s.pfc_watchdog.enabled);
  EXPECT_EQ(s.pfc_watchdog.settings.storm_detect_ms, 50u);
  EXPECT_EQ(s.pfc_watchdog.settings.storm_restore_ms, 200u);
  EXPECT_EQ(s.pfc_watchdog.action, StormAction::kMove);
  EXPECT_EQ(parse_config(ports + "bonds:\n  - {name: uplink, members: [m0, m1], scheduler: "
                                 "{pfc_watchdog: {action: drop}}}\n",
                         "drop.yaml")
                .bonds[0]
                .scheduler.pfc_watchdog.action,
            StormAction::kDrop);
}

TEST(Config, BondSchedulerErrorsNameTheKey) {
  const std::string head = two_member_bond("scheduler");
  EXPECT_NE(error_of(head + "{policy: random}").find("unknown policy \"random\""),
            std::string::npos);
  EXPECT_NE(error_of(head + "{weights: [1, 2, 3]}").find("one weight per member (2), got 3"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{weights: [1, 0]}").find("weights[1]"), std::string::npos);
  EXPECT_NE(error_of(head + "{flowlet_gap: 5}").find("unknown key \"flowlet_gap\""),
            std::string::npos);
  EXPECT_NE(error_of(head + "{congestion: {source: snmp}}").find("unknown source"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{pfc_watchdog: {storm_detect_ms: 5}}").find("storm_detect_ms"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{pfc_watchdog: {action: alert}}")
                .find("pfc_watchdog.action: unknown action \"alert\" (known: move, drop)"),
            std::string::npos)
      << error_of(head + "{pfc_watchdog: {action: alert}}");
  EXPECT_NE(error_of(head + "{aimd: {floor_permille: 900, ceiling_permille: 500}}")
                .find("must not exceed"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{congestion: {source: mlx5, netdevs: [a, b, c]}}")
                .find("more entries than the bond has members (2)"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{congestion: {source: mlx5, netdevs: [\"a:b\"]}}")
                .find("netdevs[0]: \"a:b\" is not a Linux netdev name"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{congestion: {source: mlx5, netdevs: [ens1f0np0, abcdefghijklmnop]}}")
                .find("netdevs[1]"),
            std::string::npos);
}

}  // namespace
}  // namespace braid::config

namespace braid::config {
namespace {

TEST(Config, ThousandsOfPortsValidateInLinearTime) {
  // Every cross-key check looked names up with a linear scan, so validation took quadratic time:
  // 14 s under ASan for 30000 ports and members (1.2 MB of text; a file may have 1 MiB);
  // with the names indexed, 2 s. The thread's own CPU time, not the wall clock: a busy machine
  // (the test suite's other jobs, builds) must not fail it.
  constexpr int kPorts = 30000;
  std::string text = "ports:\n";
  for (int i = 0; i < kPorts; ++i)
    text += "  - {name: p" + std::to_string(i) + ", device: d" + std::to_string(i) + "}\n";
  // In groups of 16 ports: a bond of 15 members (at most 16: kMaxBondMembers) and its host port.
  constexpr int kGroup = 16;
  std::string bonds = "bonds:\n";
  std::string cross = "cross_connect:\n";
  for (int g = 0; g + kGroup <= kPorts; g += kGroup) {
    const std::string bond = "b" + std::to_string(g);
    bonds += "  - {name: " + bond + ", members: [";
    for (int i = g + 1; i < g + kGroup; ++i)
      bonds += (i > g + 1 ? ",p" : "p") + std::to_string(i);
    bonds += "]}\n";
    cross += "  - [p" + std::to_string(g) + ", " + bond + "]\n";
  }
  text += bonds + cross;
  const auto thread_cpu_s = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
  };
  const double start = thread_cpu_s();
  const Config config = parse_config(text, "many.yaml");
  const double took_s = thread_cpu_s() - start;
  EXPECT_EQ(config.bonds.size(), static_cast<std::size_t>(kPorts / kGroup));
  EXPECT_EQ(config.bonds[0].members.size(), kGroup - 1u);
  EXPECT_LT(took_s, 7.0) << "CPU seconds to validate";
}

TEST(Config, BondHealthDefaultsAndSettings) {
  const Config defaults = parse_config(two_member_bond("mode") + "static\n", "health.yaml");
  const health::HealthSettings& plain = defaults.bonds[0].health.settings;
  EXPECT_EQ(plain.up_delay_ns, 0u);
  EXPECT_EQ(plain.degraded_weight_permille, 100u);
  EXPECT_EQ(plain.window_ns, 10 * health::kNsPerSecond);
  EXPECT_EQ(plain.dampening.penalty_per_flap, 1000u);
  EXPECT_EQ(plain.dampening.half_life_ns, 30 * health::kNsPerSecond);
  EXPECT_FALSE(defaults.bonds[0].health.xstats_set[0]);
  const Config config = parse_config(two_member_bond("health") + R"(
      up_delay_ms: 200
      down_delay_ms: 50
      degraded_weight_permille: 0
      window_s: 5
      dampening: {penalty_per_flap: 500, suppress_threshold: 1500, reuse_threshold: 400, half_life_s: 10, max_suppress_s: 60}
      signals: {crc: {degrade_ppm: 50, recover_ppm: 5, min_frames: 20000, recover_hold_s: 60}, fec_corrected: {judged: true}}
      xstats: {crc: [rx_fcs_errors], symbol: []}
)",
                                     "health.yaml");
  const HealthConfig& h = config.bonds[0].health;
  EXPECT_EQ(h.settings.up_delay_ns, 200 * health::kNsPerMs);
  EXPECT_EQ(h.settings.down_delay_ns, 50 * health::kNsPerMs);
  EXPECT_EQ(h.settings.degraded_weight_permille, 0u);
  EXPECT_EQ(h.settings.window_ns, 5 * health::kNsPerSecond);
  EXPECT_EQ(h.settings.dampening.penalty_per_flap, 500u);
  EXPECT_EQ(h.settings.dampening.suppress_threshold, 1500u);
  EXPECT_EQ(h.settings.dampening.reuse_threshold, 400u);
  EXPECT_EQ(h.settings.dampening.half_life_ns, 10 * health::kNsPerSecond);
  EXPECT_EQ(h.settings.dampening.max_suppress_ns, 60 * health::kNsPerSecond);
  const auto crc = static_cast<std::size_t>(health::Signal::kCrc);
  EXPECT_EQ(h.settings.signals[crc].degrade_ppm, 50u);
  EXPECT_EQ(h.settings.signals[crc].recover_ppm, 5u);
  EXPECT_EQ(h.settings.signals[crc].min_frames, 20000u);
  EXPECT_EQ(h.settings.signals[crc].recover_hold_ns, 60 * health::kNsPerSecond);
  EXPECT_TRUE(h.settings.signals[static_cast<std::size_t>(health::Signal::kFecCorrected)].judged);
  EXPECT_EQ(h.xstats[crc], (std::vector<std::string>{"rx_fcs_errors"}));
  EXPECT_TRUE(h.xstats_set[static_cast<std::size_t>(health::Signal::kSymbol)]);
  EXPECT_TRUE(h.xstats[static_cast<std::size_t>(health::Signal::kSymbol)].empty());
}

TEST(Config, BondHealthErrorsNameTheKey) {
  const std::string head = two_member_bond("health");
  EXPECT_NE(error_of(head + "{degraded_weight_permille: 1001}")
                .find("health.degraded_weight_permille: must be 0..1000"),
            std::string::npos)
      << error_of(head + "{degraded_weight_permille: 1001}");
  EXPECT_NE(error_of(head + "{up_delay: 5}").find("unknown key \"up_delay\""), std::string::npos);
  EXPECT_NE(error_of(head + "{dampening: {reuse_threshold: 3000}}")
                .find("reuse_threshold (3000) must be above 0 and below suppress_threshold"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{dampening: {half_life_s: 30, max_suppress_s: 1}}")
                .find("max_suppress is too short"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{signals: {fcs: {degrade_ppm: 5}}}").find("unknown signal \"fcs\""),
            std::string::npos);
  EXPECT_NE(error_of(head + "{signals: {crc: {degrade_ppm: 50, recover_ppm: 50}}}")
                .find("health.signals.crc: signal crc: recover_ppm (50) must be below degrade_ppm"),
            std::string::npos)
      << error_of(head + "{signals: {crc: {degrade_ppm: 50, recover_ppm: 50}}}");
  EXPECT_NE(error_of(head + "{signals: {crc: {hold: 5}}}").find("unknown key \"hold\""),
            std::string::npos);
  EXPECT_NE(error_of(head + "{xstats: {crc: rx_crc_errors}}").find("health.xstats.crc"),
            std::string::npos);
  EXPECT_NE(error_of(head + "{xstats: {crc: [a], crc: [b]}}").find("duplicate key \"crc\""),
            std::string::npos);
  // The line of the offending value.
  EXPECT_NE(error_of(head + "\n      window_s: 0").find("test.yaml:11"), std::string::npos)
      << error_of(head + "\n      window_s: 0");
}

}  // namespace
}  // namespace braid::config
