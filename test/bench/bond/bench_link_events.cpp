// Failover by link source (benchmark, not a test): a 2-member static bond whose member 0 is
// one of three kinds of port and whose member 1 is a net_ring port the harness reads; 4096 flows
// go in, member 0's link goes down, and the harness times
//   (a) the event to braid's table publication (the failover decision), and
//   (b) the event to the first packet of a flow that was on member 0 seen on member 1.
// Member 0 kinds:
//   poll       a net_ring port (rte_eth_dev_set_link_down: no interrupt; braid's link poll,
//              link_poll_us = 1 ms, finds it);
//   interrupt  DPDK's net_bonding over a ring slave: it raises a link-status interrupt when its
//              slave goes down (it watches the slave every 10 ms; a NIC interrupts within
//              microseconds), so the event is timed from the interrupt itself (an LSC callback
//              of the harness's own); link_poll_us = 1 s so only the interrupt explains it;
//   kernel     net_af_packet on a veth pair: the far end is taken down (SIOCSIFFLAGS, the
//              ioctl `ip link` uses) and braid hears it from the kernel (netlink);
//              link_poll_us = 1 s.
// The harness thread is braid's protocol loop (it calls Engine::poll_control). Flap dampening is
// off (every round takes the member down and up again: by the third, dampening would suppress
// it and the rounds after would time nothing); a round that publishes no table or moves no flow
// stops the benchmark with the reason and exit status 1 (the `failover_guard` test runs it).
//
//   scripts/build release && build/test/bench/bond/bench_link_events [rounds]
#include <net/if.h>
#include <rte_eth_bond.h>
#include <rte_ethdev.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "log/async_log.hpp"
#include "traffic.hpp"

namespace braid::test {
namespace {

constexpr std::uint32_t kFlows = 4096;
constexpr std::uint64_t kTimeoutNs = 3'000'000'000;

std::atomic<std::uint64_t> interrupt_ns{0};

int note_interrupt(std::uint16_t, rte_eth_event_type, void*, void*) {
  interrupt_ns.store(monotonic_ns());
  return 0;
}

bool set_interface_up(const std::string& name, bool up) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  bool ok = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
  if (up) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
  } else {
    request.ifr_flags = static_cast<short>(request.ifr_flags & ~IFF_UP);
  }
  ok = ok && ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
  ::close(fd);
  return ok;
}

struct Sample {
  double decision_us = -1;
  double first_packet_us = -1;
};

// A round that timed nothing: the benchmark stops (a -1 in a table measures nothing).
struct RoundError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Kind { kPoll, kInterrupt, kKernel };

class Rig {
 public:
  explicit Rig(Kind kind) : kind_(kind), host_(unique_name("lhost"), 2, 8192), flows_(kFlows) {
    survivor_ = std::make_unique<RingPort>(unique_name("lsurv"), 2, 8192);
    std::string device;
    std::uint32_t poll_us = 1'000'000;
    switch (kind) {
      case Kind::kPoll:
        ring_ = std::make_unique<RingPort>(unique_name("lpoll"), 2, 8192);
        device = ring_->name();
        poll_us = 1000;
        break;
      case Kind::kInterrupt: {
        ring_ = std::make_unique<RingPort>(unique_name("lslave"), 2, 8192);
        wrapper_name_ = unique_name("net_bonding_ev");
        const int wrapper = rte_eth_bond_create(wrapper_name_.c_str(), BONDING_MODE_8023AD, 0);
        if (wrapper < 0 ||
            rte_eth_bond_slave_add(static_cast<std::uint16_t>(wrapper), ring_->port_id()) != 0) {
          throw std::runtime_error("cannot build the net_bonding wrapper");
        }
        wrapper_ = static_cast<std::uint16_t>(wrapper);
        device = wrapper_name_;
        break;
      }
      case Kind::kKernel: {
        const std::string id = std::to_string(getpid() % 100000);
        veth_a_ = "bla" + id;
        veth_b_ = "blb" + id;
        std::system(("ip link del " + veth_a_ + " 2>/dev/null").c_str());
        if (std::system(("ip link add " + veth_a_ + " type veth peer name " + veth_b_).c_str()) !=
                0 ||
            !set_interface_up(veth_a_, true) || !set_interface_up(veth_b_, true)) {
          throw std::runtime_error("cannot create a veth pair");
        }
        device = unique_name("net_af_packet_ev") + ",iface=" + veth_a_ + ",qpairs=2";
        break;
      }
    }
    const std::string yaml =
        "ports:\n  - {name: host, device: \"" + host_.name() + "\"}\n  - {name: m0, device: \"" +
        device + "\"}\n  - {name: m1, device: \"" + survivor_->name() +
        "\"}\nbonds:\n  - {name: up, members: [m0, m1], mode: static, buckets: 4096, "
        "health: {dampening: {penalty_per_flap: 0}}, link_poll_us: " +
        std::to_string(poll_us) + "}\ncross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
    engine_ = std::make_unique<engine::Engine>(config::parse_config(yaml, "link-events"));
    if (kind == Kind::kInterrupt) {
      rte_eth_dev_callback_register(wrapper_, RTE_ETH_EVENT_INTR_LSC, note_interrupt, nullptr);
    }
    engine_->start();
    wait([&] { return engine_->bond(0).members()[0].link_up; });
  }
  ~Rig() {
    engine_.reset();
    if (kind_ == Kind::kInterrupt) {
      rte_eth_dev_callback_unregister(wrapper_, RTE_ETH_EVENT_INTR_LSC, note_interrupt, nullptr);
      rte_eth_bond_free(wrapper_name_.c_str());
    }
    if (kind_ == Kind::kKernel) std::system(("ip link del " + veth_a_ + " 2>/dev/null").c_str());
  }

  template <typename Done>
  bool wait(Done done) {
    const std::uint64_t start = monotonic_ns();
    while (!done() && monotonic_ns() - start < kTimeoutNs)
      pump(0);
    return done();
  }

  // Injects `count` packets round robin over the flows, reads member 1, runs control.
  void pump(std::uint32_t count) {
    rte_mbuf* burst[64];
    std::uint32_t made = 0;
    for (; made < count && made < 64; ++made) {
      burst[made] = flows_.make(test_mempool(), next_flow_);
      next_flow_ = (next_flow_ + 1) % kFlows;
    }
    const unsigned queued =
        rte_ring_enqueue_burst(host_.to_port(), reinterpret_cast<void**>(burst), made, nullptr);
    rte_pktmbuf_free_bulk(burst + queued, made - queued);
    survivor_->drain([&](const rte_mbuf* frame) {
      const Stamp stamp = FlowSet::stamp_of(frame);
      if (stamp.flow < kFlows && on_survivor_ != nullptr) on_survivor_(stamp.flow);
    });
    if (ring_) ring_->drain([](const rte_mbuf*) {});
    engine_->poll_control(monotonic_ns());
  }

  Sample round() {
    // Which flows member 1 carries now; the others are member 0's.
    std::vector<bool> on_survivor(kFlows, false);
    on_survivor_ = [&](std::uint32_t flow) { on_survivor[flow] = true; };
    for (int i = 0; i < 400; ++i)
      pump(64);
    const std::uint64_t published_before = engine_->bond(0).last_publish_ns();
    std::uint64_t first_moved_ns = 0;
    on_survivor_ = [&](std::uint32_t flow) {
      if (!on_survivor[flow] && first_moved_ns == 0) first_moved_ns = monotonic_ns();
    };
    interrupt_ns.store(0);
    std::uint64_t event_ns = monotonic_ns();
    switch (kind_) {
      case Kind::kPoll:
        rte_eth_dev_set_link_down(ring_->port_id());
        break;
      case Kind::kInterrupt:
        rte_eth_dev_set_link_down(ring_->port_id());  // the wrapper's slave
        break;
      case Kind::kKernel:
        set_interface_up(veth_b_, false);
        break;
    }
    bond::Bond& bond = engine_->bond(0);
    // Traffic keeps coming, as it would: the first moved packet is one injected after the event.
    const std::uint64_t give_up = monotonic_ns() + kTimeoutNs;
    while ((first_moved_ns == 0 || bond.last_publish_ns() == published_before) &&
           monotonic_ns() < give_up)
      pump(16);
    if (kind_ == Kind::kInterrupt && interrupt_ns.load() != 0) event_ns = interrupt_ns.load();
    Sample sample;
    if (bond.last_publish_ns() == published_before || first_moved_ns == 0) {
      const bond::MemberStatus member = bond.members()[0];
      throw RoundError(
          std::string("the link event ") +
          (bond.last_publish_ns() == published_before ? "published no table" : "moved no flow") +
          " within " + std::to_string(kTimeoutNs / 1'000'000) + " ms (member 0: link " +
          (member.link_up ? "up" : "down") + ", health " + health::to_string(member.health) + " " +
          member.health_reason + ")");
    }
    if (bond.last_publish_ns() >= event_ns)
      sample.decision_us = static_cast<double>(bond.last_publish_ns() - event_ns) / 1e3;
    if (first_moved_ns >= event_ns)
      sample.first_packet_us = static_cast<double>(first_moved_ns - event_ns) / 1e3;
    on_survivor_ = nullptr;
    // Back up, and traffic spread over both again.
    switch (kind_) {
      case Kind::kPoll:
      case Kind::kInterrupt:
        rte_eth_dev_set_link_up(ring_->port_id());
        break;
      case Kind::kKernel:
        set_interface_up(veth_b_, true);
        break;
    }
    wait([&] { return bond.table()->distributing[0]; });
    return sample;
  }

 private:
  Kind kind_;
  RingPort host_;
  std::unique_ptr<RingPort> survivor_;
  std::unique_ptr<RingPort> ring_;
  std::string wrapper_name_;
  std::uint16_t wrapper_ = 0;
  std::string veth_a_;
  std::string veth_b_;
  FlowSet flows_;
  std::unique_ptr<engine::Engine> engine_;
  std::function<void(std::uint32_t)> on_survivor_;
  std::uint32_t next_flow_ = 0;
};

void report(const char* name, std::vector<Sample> samples) {
  auto stats = [&](auto field) {
    std::vector<double> values;
    for (const Sample& s : samples) {
      if (s.*field >= 0) values.push_back(s.*field);
    }
    std::sort(values.begin(), values.end());
    char text[96];
    if (values.empty()) return std::string("- | - | -");
    std::snprintf(text, sizeof text, "%.1f | %.1f | %.1f", values.front(),
                  values[values.size() / 2], values.back());
    return std::string(text);
  };
  std::printf("| %s | %zu | %s | %s |\n", name, samples.size(), stats(&Sample::decision_us).c_str(),
              stats(&Sample::first_packet_us).c_str());
}

}  // namespace
}  // namespace braid::test

int main(int argc, char** argv) {
  using namespace braid::test;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  EalEnvironment eal;
  eal.SetUp();
  // As braid runs: a log line never blocks the thread that writes it (log/async_log.hpp), so
  // the protocol work timed here does not include the terminal's or syslog's.
  auto async_log = std::make_unique<braid::log::AsyncLog>();
  std::printf(
      "| member 0's link source | rounds | to table: min us | median | max | to first packet on "
      "the survivor: min us | median | max |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  const std::pair<const char*, Kind> kinds[] = {
      {"poll (net_ring, link_poll_us 1000)", Kind::kPoll},
      {"interrupt (LSC, from the interrupt)", Kind::kInterrupt},
      {"kernel (net_af_packet on veth, netlink)", Kind::kKernel}};
  int status = 0;
  for (const auto& [name, kind] : kinds) {
    std::unique_ptr<Rig> rig;
    try {
      rig = std::make_unique<Rig>(kind);
    } catch (const std::exception& error) {  // this host cannot build it (no veth, say)
      std::printf("| %s | skipped: %s |\n", name, error.what());
      continue;
    }
    std::vector<Sample> samples;
    try {
      for (int r = 0; r < rounds; ++r)
        samples.push_back(rig->round());
    } catch (const RoundError& error) {
      std::fprintf(stderr, "bench_link_events: %s, round %zu: %s\n", name, samples.size() + 1,
                   error.what());
      status = 1;
      break;
    }
    report(name, samples);
  }
  async_log.reset();
  eal.TearDown();
  return status;
}
