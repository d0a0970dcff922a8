#include <gtest/gtest.h>

#include <string>

#include "config/config_loader.hpp"
#include "config/demo_config.hpp"

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

// Returns the ConfigError message, or "" when the text is valid.
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "test.yaml");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

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
                "port \"p2\" is not a configured port (known: p0, p1)"},
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
    EXPECT_STREQ(error.what(), "config: /nonexistent/braid.yaml: cannot open file");
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
  EXPECT_NE(error_of(std::string(kMinimal) + "control:\n  socket: /" + std::string(120, 'a') +
                     "\n")
                .find("control.socket: a UNIX socket path has at most 107 bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace braid::config
