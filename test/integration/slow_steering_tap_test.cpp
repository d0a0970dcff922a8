// Slow Protocols steering on net_tap, the one vdev whose PMD implements rte_flow (as tc flower
// rules on the tap interface). LACPDUs come from the kernel side of the tap through an
// AF_PACKET socket, as a partner's would from the wire. Where the kernel lacks what the tap PMD
// builds its rules from (the multiq qdisc, flower, skbedit), `on` must fail with the PMD's
// reason and `auto` must deliver the LACPDUs over the workers' ring; where the kernel has them,
// `on` must steer them (the test checks whichever the kernel allows and says which).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "config/config_loader.hpp"
#include "slow_frames.hpp"

namespace braid::test {
namespace {

constexpr std::size_t kLacpdus = 5;
constexpr std::size_t kDataFrames = 20;

// The kernel side of a tap interface: frames written here are what the tap PMD receives.
class KernelSide {
 public:
  explicit KernelSide(const std::string& interface)
      : fd_(socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL))) {
    sockaddr_ll address{};
    address.sll_family = AF_PACKET;
    address.sll_protocol = htons(ETH_P_ALL);
    address.sll_ifindex = static_cast<int>(if_nametoindex(interface.c_str()));
    bound_ = fd_ >= 0 && address.sll_ifindex != 0 &&
             bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  }
  ~KernelSide() {
    if (fd_ >= 0) close(fd_);
  }
  KernelSide(const KernelSide&) = delete;
  KernelSide& operator=(const KernelSide&) = delete;

  bool ready() const { return bound_; }
  bool send(const std::vector<std::uint8_t>& frame) const {
    return ::send(fd_, frame.data(), frame.size(), 0) == static_cast<ssize_t>(frame.size());
  }

 private:
  int fd_;
  bool bound_ = false;
};

struct TapBond {
  std::string interface;
  std::unique_ptr<RingPort> host;
  std::string yaml;
};

// A bond whose member is a net_tap port; the tap interface is named for this process.
TapBond tap_bond(const std::string& steering) {
  TapBond tap;
  tap.interface = "brst" + std::to_string(getpid() % 100000) + unique_name("_");
  tap.host = std::make_unique<RingPort>(unique_name("taphost"));
  tap.yaml = "ports:\n  - {name: host, device: \"" + tap.host->name() +
             "\"}\n  - {name: m0, device: \"" + unique_name("net_tap_st") +
             ",iface=" + tap.interface +
             "\"}\nbonds:\n  - {name: up, members: [m0], mode: "
             "static, slow_steering: " +
             steering + "}\ncross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  return tap;
}

bool has_tun() {
  return access("/dev/net/tun", R_OK | W_OK) == 0;
}

TEST(SlowSteeringTap, LacpdusFromTheKernelArriveOnTheSlowPathAndDataReachesTheHost) {
  if (!has_tun()) GTEST_SKIP() << "/dev/net/tun is absent: net_tap cannot create an interface";
  TapBond tap = tap_bond("auto");
  auto engine = std::make_unique<engine::Engine>(config::parse_config(tap.yaml, "tap"));
  const bond::Bond& bond = engine->bond(0);
  const bool steered = bond.members()[0].slow_rx_queue.has_value();
  std::printf("net_tap here: Slow Protocols %s\n",
              steered ? "steered by rte_flow (tc flower)" : "over the workers' ring");
  for (const bond::BondEvent& event : bond.events())
    std::printf("  bond event: %s\n", event.text.c_str());
  engine->start();
  KernelSide kernel(tap.interface);
  ASSERT_TRUE(kernel.ready()) << "AF_PACKET socket on " << tap.interface << ": "
                              << std::strerror(errno);

  // One frame per flow: the kernel spreads a multi-queue tap's frames over its queues by flow
  // hash, so some land on queue 1, which only the workers' polling of it (auto) forwards.
  const std::vector<std::uint8_t> lacpdu = partner_lacpdu();
  std::vector<std::vector<std::uint8_t>> data;
  for (std::size_t i = 0; i < kLacpdus; ++i) {
    ASSERT_TRUE(kernel.send(lacpdu)) << std::strerror(errno);
    for (std::size_t d = 0; d < kDataFrames / kLacpdus; ++d) {
      data.push_back(data_frame(static_cast<std::uint16_t>(data.size())));
      ASSERT_TRUE(kernel.send(data.back())) << std::strerror(errno);
    }
  }
  // The kernel may add frames of its own (IPv6 neighbour discovery on a new interface): only
  // ours are counted at the host.
  std::uint64_t data_at_host = 0;
  auto drain_host = [&] {
    tap.host->drain([&](const rte_mbuf* frame) {
      for (const std::vector<std::uint8_t>& sent : data)
        data_at_host += holds(frame, sent) ? 1 : 0;
    });
  };
  const bond::BondCounters& counters = bond.counters();
  ASSERT_TRUE(run_control_until(
      *engine,
      [&] {
        return counters.slow_rx_steered + counters.slow_rx_diverted == kLacpdus &&
               data_at_host == kDataFrames;
      },
      drain_host))
      << "steered " << counters.slow_rx_steered << " diverted " << counters.slow_rx_diverted
      << " data at host " << data_at_host;
  rte_eth_stats stats{};
  rte_eth_stats_get(engine->port(1).id(), &stats);
  std::printf(
      "net_tap here: %llu LACPDUs steered, %llu diverted, %llu of %zu data frames at the "
      "host; tap RX queue 0 took %llu frames, queue 1 %llu\n",
      static_cast<unsigned long long>(counters.slow_rx_steered),
      static_cast<unsigned long long>(counters.slow_rx_diverted),
      static_cast<unsigned long long>(data_at_host), kDataFrames,
      static_cast<unsigned long long>(stats.q_ipackets[0]),
      static_cast<unsigned long long>(stats.q_ipackets[1]));
  if (steered) {
    EXPECT_EQ(counters.slow_rx_steered, kLacpdus);
    EXPECT_EQ(counters.slow_rx_diverted, 0u);
  } else {
    EXPECT_EQ(counters.slow_rx_diverted, kLacpdus);
    EXPECT_EQ(counters.slow_rx_steered, 0u);
    EXPECT_EQ(engine->totals().to_control, kLacpdus);
  }
  EXPECT_EQ(counters.slow_frames_ignored, kLacpdus);  // mode static: counted, ignored
  EXPECT_EQ(counters.slow_queue_misdirected, 0u);

  engine.reset();
  EXPECT_EQ(if_nametoindex(tap.interface.c_str()), 0u) << tap.interface << " outlived braid";
}

TEST(SlowSteeringTap, OnStartsOnlyIfTheTapPmdInstallsItsRule) {
  if (!has_tun()) GTEST_SKIP() << "/dev/net/tun is absent: net_tap cannot create an interface";
  TapBond tap = tap_bond("on");
  try {
    engine::Engine engine(config::parse_config(tap.yaml, "tap"));
    // The kernel has the multiq qdisc, flower and skbedit: the rule is in and used.
    EXPECT_EQ(engine.bond(0).members()[0].slow_rx_queue, std::optional<std::uint16_t>(1));
    std::printf("net_tap here: rte_flow rule installed (%s)\n",
                engine.port(1).slow_steering_description().c_str());
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    std::printf("net_tap here: %s\n", message.c_str());
    EXPECT_NE(message.find("member m0 (driver net_tap) cannot steer Slow Protocols frames"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("slow_steering is on: rte_flow_"), std::string::npos) << message;
  }
  EXPECT_EQ(if_nametoindex(tap.interface.c_str()), 0u) << tap.interface << " outlived braid";
}

}  // namespace
}  // namespace braid::test
