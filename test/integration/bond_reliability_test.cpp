// The bond against what real NICs and kernels do, each case one of issue 13's defects: a port
// that refuses a LACPDU (the frame must go out again soon, not at the next periodic time), link
// interrupts (net_tap raises them), members on kernel interfaces (net_af_packet on a veth pair:
// the link comes from the kernel), a worker burst that must never leave on an older table than
// the one the worker adopted, and ports on two NUMA sockets (two pools: no fast free where a
// queue sees both).
// rte_eth_dev_conf_get (what braid configured) is experimental in 22.11.
#define ALLOW_EXPERIMENTAL_API 1

#include <gtest/gtest.h>
#include <net/if.h>
#include <rte_eth_bond.h>
#include <rte_eth_ring.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "bond/dpdk/bond_datapath.hpp"
#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "lacp/frame.hpp"
#include "quirky_port.hpp"
#include "traffic.hpp"

namespace braid::test {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

bool is_lacpdu(const rte_mbuf* frame) {
  const lacp::DecodedFrame decoded = lacp::decode_slow_frame(
      ByteSpan(rte_pktmbuf_mtod(frame, const std::uint8_t*), frame->data_len));
  return decoded.kind == lacp::FrameKind::kLacpdu;
}

// Runs the protocol loop's work until `done` or `limit_ns`; returns the time it took.
template <typename Done>
std::optional<std::uint64_t> poll_until(engine::Engine& engine, Done done, std::uint64_t limit_ns) {
  const std::uint64_t start = monotonic_ns();
  while (monotonic_ns() - start < limit_ns) {
    engine.poll_control(monotonic_ns());
    if (done()) return monotonic_ns() - start;
    rte_delay_us_sleep(100);
  }
  return std::nullopt;
}

TEST(BondReliability, ALacpduThePortRefusedGoesOutAgainWithinMilliseconds) {
  RingPort host(unique_name("rhost"));
  QuirkyPort member(unique_name("rrefuse"));
  const std::string yaml = "ports:\n  - {name: host, device: \"" + host.name() +
                           "\"}\n  - {name: m0, device: \"" + member.name() +
                           "\"}\nbonds:\n  - {name: up, members: [m0], mode: lacp}\n"
                           "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  engine::Engine engine(config::parse_config(yaml, "refused-lacpdu"));
  member.attach();
  const std::uint16_t control_queue = static_cast<std::uint16_t>(engine.port(1).tx_queues() - 1);
  // The first LACPDU (at link up, on start) finds the control queue full.
  member.refuse_next(control_queue, 1);
  engine.start();
  std::uint64_t lacpdus = 0;
  const auto sent = poll_until(
      engine,
      [&] {
        member.drain([&](const rte_mbuf* frame) { lacpdus += is_lacpdu(frame) ? 1 : 0; });
        return lacpdus != 0;
      },
      2'000 * kMs);
  ASSERT_TRUE(sent.has_value()) << "no LACPDU at all";
  EXPECT_EQ(member.stats(control_queue).refused, 1u);
  EXPECT_EQ(engine.bond(0).lacp()->counters(0).lacpdu_tx_failed, 1u);
  // Before: NTT was cleared with the refused frame, and the partner heard nothing until the
  // next periodic LACPDU, 1 s later (30 s against a slow partner).
  EXPECT_LT(*sent, 200 * kMs) << "the refused LACPDU waited for the periodic timer";
  std::printf("refused LACPDU: sent again after %.1f ms\n", static_cast<double>(*sent) / 1e6);
  engine.stop();
}

// A network namespace-free veth pair the test owns (names unique to this process).
class VethPair {
 public:
  VethPair() {
    const std::string id = std::to_string(getpid() % 100000) + unique_name("");
    a_ = "bra" + id.substr(0, 11);
    b_ = "brb" + id.substr(0, 11);
    ok_ = std::system(
              ("ip link add " + a_ + " type veth peer name " + b_ + " 2>/dev/null").c_str()) == 0 &&
          set_up(a_, true) && set_up(b_, true);
  }
  ~VethPair() { std::system(("ip link del " + a_ + " 2>/dev/null").c_str()); }
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;

  bool ok() const { return ok_; }
  const std::string& a() const { return a_; }
  const std::string& b() const { return b_; }
  static bool set_up(const std::string& name, bool up) {
    return std::system(("ip link set " + name + (up ? " up" : " down")).c_str()) == 0;
  }

 private:
  std::string a_;
  std::string b_;
  bool ok_ = false;
};

TEST(BondReliability, AMemberOnAKernelInterfaceTakesItsLinkFromTheKernel) {
  VethPair veth;
  if (!veth.ok()) GTEST_SKIP() << "cannot create a veth pair here";
  RingPort host(unique_name("khost"));
  // link_poll_us 1 s: only the kernel's notification can explain a fast failover.
  const std::string yaml =
      "ports:\n  - {name: host, device: \"" + host.name() + "\"}\n  - {name: m0, device: \"" +
      unique_name("net_af_packet_k") + ",iface=" + veth.a() +
      ",qpairs=2\"}\nbonds:\n  - {name: up, members: [m0], mode: static, link_poll_us: 1000000}\n"
      "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  engine::Engine engine(config::parse_config(yaml, "kernel-link"));
  engine.start();
  bond::Bond& bond = engine.bond(0);
  ASSERT_TRUE(poll_until(
      engine, [&] { return bond.members()[0].link_up; }, 3'000 * kMs))
      << "the af_packet member never came up";
  EXPECT_STREQ(bond.members()[0].link_source, "kernel");
  // The far end goes down: this end loses its carrier, the PMD still says "up".
  const std::uint64_t cut = monotonic_ns();
  ASSERT_TRUE(VethPair::set_up(veth.b(), false));
  const auto down = poll_until(
      engine, [&] { return !bond.members()[0].link_up; }, 3'000 * kMs);
  ASSERT_TRUE(down.has_value()) << "braid never saw the kernel link go down";
  const double down_ms = static_cast<double>(monotonic_ns() - cut) / 1e6;
  EXPECT_LT(down_ms, 100.0) << "not event-driven: link_poll_us is 1 s";
  EXPECT_FALSE(bond.table()->distributing[0]);
  ASSERT_TRUE(VethPair::set_up(veth.b(), true));
  EXPECT_TRUE(poll_until(
      engine, [&] { return bond.members()[0].link_up; }, 3'000 * kMs));
  std::printf("af_packet member: link down seen %.1f ms after `ip link set %s down`\n", down_ms,
              veth.b().c_str());
  engine.stop();
}

TEST(BondReliability, AnAfPacketMemberWithOneQueuePairSaysToAddQpairs) {
  VethPair veth;
  if (!veth.ok()) GTEST_SKIP() << "cannot create a veth pair here";
  RingPort host(unique_name("qhost"));
  const std::string yaml = "ports:\n  - {name: host, device: \"" + host.name() +
                           "\"}\n  - {name: m0, device: \"" + unique_name("net_af_packet_q") +
                           ",iface=" + veth.a() +
                           "\"}\nbonds:\n  - {name: up, members: [m0], mode: lacp}\n"
                           "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  try {
    engine::Engine engine(config::parse_config(yaml, "af-packet-queues"));
    FAIL() << "a one-queue af_packet member was accepted";
  } catch (const std::exception& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("1 for its bond's LACPDUs"), std::string::npos) << text;
    EXPECT_NE(text.find("qpairs=2"), std::string::npos) << text;
  }
}

// A PMD that raises link-status interrupts, in a process without NICs: DPDK's own bonding PMD
// (one ring slave) advertises RTE_ETH_DEV_INTR_LSC and, when the application
// asked for them (intr_conf.lsc), calls its LSC callbacks as soon as its slave's link changes
// (it watches the slave every 10 ms). net_tap advertises them too but, in 22.11, only updates
// its link on the kernel's notification and calls no callback.
TEST(BondReliability, LinkInterruptsStartFailoverAtTheEventNotTheNextPoll) {
  RingPort host(unique_name("lschost"));
  RingPort slave(unique_name("lscslave"));
  const std::string wrapper_name = unique_name("net_bonding_lsc");
  // Mode 4: the one mode whose start does not program its MAC into the slave, which net_ring
  // cannot take.
  const int wrapper = rte_eth_bond_create(wrapper_name.c_str(), BONDING_MODE_8023AD, 0);
  ASSERT_GE(wrapper, 0);
  ASSERT_EQ(rte_eth_bond_slave_add(static_cast<std::uint16_t>(wrapper), slave.port_id()), 0);
  {
    const std::string yaml =
        "ports:\n  - {name: host, device: \"" + host.name() + "\"}\n  - {name: m0, device: \"" +
        wrapper_name +
        "\"}\nbonds:\n  - {name: up, members: [m0], mode: static, link_poll_us: 1000000}\n"
        "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
    engine::Engine engine(config::parse_config(yaml, "lsc"));
    ASSERT_TRUE(engine.port(1).lsc_interrupts()) << "net_bonding advertises link interrupts";
    // What NIC PMDs (i40e, ice, mlx5) need before they arm the interrupt at all; net_bonding
    // calls its callbacks regardless, so the timing below shows the callback path, and this
    // that braid asks for it (issue 13 item 5: it never did).
    rte_eth_conf conf{};
    ASSERT_EQ(rte_eth_dev_conf_get(engine.port(1).id(), &conf), 0);
    EXPECT_EQ(conf.intr_conf.lsc, 1u);
    engine.start();
    bond::Bond& bond = engine.bond(0);
    ASSERT_TRUE(poll_until(
        engine, [&] { return bond.members()[0].link_up; }, 3'000 * kMs));
    EXPECT_STREQ(bond.members()[0].link_source, "interrupt");
    const std::uint64_t cut = monotonic_ns();
    rte_eth_dev_set_link_down(slave.port_id());
    const auto down = poll_until(
        engine, [&] { return !bond.members()[0].link_up; }, 3'000 * kMs);
    ASSERT_TRUE(down.has_value());
    const double down_ms = static_cast<double>(monotonic_ns() - cut) / 1e6;
    // Without intr_conf.lsc the PMD raises nothing, and the 1 s link poll finds it.
    EXPECT_LT(down_ms, 100.0);
    rte_eth_dev_set_link_up(slave.port_id());
    EXPECT_TRUE(poll_until(
        engine, [&] { return bond.members()[0].link_up; }, 3'000 * kMs));
    std::printf("LSC member: link down seen %.1f ms after its slave went down\n", down_ms);
    engine.stop();
  }
  rte_eth_bond_free(wrapper_name.c_str());
}

// The re-entrancy of issue 13 item 7, made deterministic: a TX callback on member 0 publishes a
// newer table exactly while the worker is adopting one (it flushes member 0's buffer there).
struct PublishOnFlush {
  bond::TablePublisher* publisher = nullptr;
  std::unique_ptr<bond::BondTable> next;
  static std::uint16_t callback(std::uint16_t, std::uint16_t, rte_mbuf**, std::uint16_t count,
                                void* user) {
    auto* self = static_cast<PublishOnFlush*>(user);
    if (self->next) self->publisher->publish(std::move(self->next));
    return count;
  }
};

std::unique_ptr<bond::BondTable> table_on(std::vector<bool> distributing,
                                          std::vector<bond::MemberIndex> buckets) {
  auto table = std::make_unique<bond::BondTable>();
  for (std::size_t m = 0; m < distributing.size(); ++m) {
    table->distributing[m] = distributing[m];
    table->collecting[m] = distributing[m];
  }
  table->buckets = std::move(buckets);
  table->bucket_shift = 32 - 8;  // 256 buckets, one class
  table->class_shift = 8;
  table->class_members[0] = 0;
  for (std::size_t m = 0; m < distributing.size(); ++m)
    if (distributing[m])
      table->class_members[0] = static_cast<std::uint16_t>(table->class_members[0] | 1u << m);
  return table;
}

TEST(BondReliability, ABurstLeavesOnTheTableTheWorkerAdopted) {
  constexpr std::uint32_t kBuckets = 256;
  std::vector<std::unique_ptr<RingPort>> members;
  for (int m = 0; m < 2; ++m)
    members.push_back(std::make_unique<RingPort>(unique_name("egress"), 1));
  for (const auto& member : members) {
    rte_eth_conf conf{};
    ASSERT_EQ(rte_eth_dev_configure(member->port_id(), 1, 1, &conf), 0);
    ASSERT_EQ(rte_eth_rx_queue_setup(member->port_id(), 0, 256, 0, nullptr, test_mempool()), 0);
    ASSERT_EQ(rte_eth_tx_queue_setup(member->port_id(), 0, 256, 0, nullptr), 0);
    ASSERT_EQ(rte_eth_dev_start(member->port_id()), 0);
  }
  rte_rcu_qsbr* qsbr =
      static_cast<rte_rcu_qsbr*>(rte_zmalloc("egress_qsbr", rte_rcu_qsbr_get_memsize(1), 64));
  ASSERT_EQ(rte_rcu_qsbr_init(qsbr, 1), 0);
  // This thread plays the worker: online, so no table it may read is freed under it.
  rte_rcu_qsbr_thread_register(qsbr, 0);
  rte_rcu_qsbr_thread_online(qsbr, 0);
  {
    bond::TablePublisher publisher(qsbr);
    flow::FlowHasher hasher(flow::HashPolicy::l34);
    std::atomic<bool> record{false};
    const bond::BondShared shared{&publisher, &hasher, nullptr, &record, 2, nullptr, {}};
    datapath::WorkerCounters counters;
    datapath::TxBuffer tx0(members[0]->port_id(), 0, 32, counters);
    datapath::TxBuffer tx1(members[1]->port_id(), 0, 32, counters);
    std::array<datapath::TxBuffer*, bond::kMaxMembers> member_tx{&tx0, &tx1};
    bond::BondEgress egress(shared, member_tx);
    // T0: both members, buckets split; a worker queues a few packets on each.
    std::vector<bond::MemberIndex> split(kBuckets);
    for (std::uint32_t b = 0; b < kBuckets; ++b)
      split[b] = static_cast<bond::MemberIndex>(b % 2);
    publisher.publish(table_on({true, true}, split));
    FlowSet flows(4096);
    auto burst = [&](std::uint32_t from, std::uint16_t n, rte_mbuf** out) {
      for (std::uint16_t i = 0; i < n; ++i)
        out[i] = flows.make(test_mempool(), from + i);
    };
    rte_mbuf* packets[16];
    burst(0, 8, packets);
    egress.send(packets, 8, counters);
    ASSERT_GT(tx0.pending(), 0u);
    ASSERT_GT(tx1.pending(), 0u);
    // T1: member 1 fails (all buckets on member 0). While adopting T1 the worker flushes member
    // 0's buffer, and that flush publishes T2: member 0 fails, member 1 is back.
    publisher.publish(table_on({true, false}, std::vector<bond::MemberIndex>(kBuckets, 0)));
    const std::uint64_t t1 = publisher.current()->generation;
    PublishOnFlush hook{&publisher,
                        table_on({false, true}, std::vector<bond::MemberIndex>(kBuckets, 1))};
    const rte_eth_rxtx_callback* callback =
        rte_eth_add_tx_callback(members[0]->port_id(), 0, &PublishOnFlush::callback, &hook);
    const std::uint64_t sent_before = counters.tx_packets[members[0]->port_id()].get();
    burst(100, 8, packets);
    egress.send(packets, 8, counters);
    rte_eth_remove_tx_callback(members[0]->port_id(), 0, callback);
    // Everything the worker sent went to members the table it adopted distributes on, and a
    // failover's burst leaves at once (issue 38): member 0's own 4 (flushed as T1 was adopted),
    // then member 1's 4 rerouted and the 8 new, all on member 0.
    EXPECT_EQ(egress.seen_generation(), t1) << "the burst adopted a second table mid-way";
    EXPECT_EQ(tx1.pending(), 0u) << "rerouted packets went to member 1, which T1 does not use";
    EXPECT_EQ(tx0.pending(), 0u) << "a failover's burst waited for the drain deadline";
    EXPECT_EQ(counters.tx_packets[members[0]->port_id()].get() - sent_before, 4u + 4u + 8u);
    // The next burst takes T2 and moves what member 0 still holds to member 1.
    burst(200, 8, packets);
    egress.send(packets, 8, counters);
    EXPECT_GT(egress.seen_generation(), t1);
    EXPECT_EQ(tx0.pending(), 0u);
    tx0.flush();
    tx1.flush();
    for (const auto& member : members)
      member->drain([](const rte_mbuf*) {});
    rte_rcu_qsbr_thread_offline(qsbr, 0);
  }
  rte_free(qsbr);
  for (const auto& member : members)
    rte_eth_dev_stop(member->port_id());
}

TEST(BondReliability, PortsOnTwoSocketsGetTwoPoolsAndNoFastFreeWhereAQueueSeesBoth) {
  RingPort host(unique_name("shost"));  // socket 0
  QuirkySettings far_socket;
  far_socket.numa_node = 1;
  QuirkyPort m0(unique_name("sock1a"), far_socket);
  QuirkyPort m1(unique_name("sock1b"), far_socket);
  const std::string yaml = "ports:\n  - {name: host, device: \"" + host.name() +
                           "\"}\n  - {name: m0, device: \"" + m0.name() +
                           "\"}\n  - {name: m1, device: \"" + m1.name() +
                           "\"}\nbonds:\n  - {name: up, members: [m0, m1], mode: static}\n"
                           "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  engine::Engine engine(config::parse_config(yaml, "two-sockets"));
  std::size_t pools = 0;
  for (const std::string& note : engine.notes())
    pools += note.find("mbufs of") != std::string::npos ? 1 : 0;
  EXPECT_EQ(pools, 2u) << "one pool per socket with ports";
  // The host port sends what both members received (socket 1's pool) ... and the members what
  // the host received (socket 0's): each queue sees one pool.
  EXPECT_TRUE(engine.port(0).single_pool_tx());
  EXPECT_TRUE(engine.port(1).single_pool_tx());
  // Members on both sockets: the host port sends mbufs of both pools.
  RingPort host2(unique_name("shost2"));
  QuirkyPort near(unique_name("sock0"));  // socket 0
  QuirkyPort far(unique_name("sock1c"), far_socket);
  const std::string mixed = "ports:\n  - {name: host, device: \"" + host2.name() +
                            "\"}\n  - {name: m0, device: \"" + near.name() +
                            "\"}\n  - {name: m1, device: \"" + far.name() +
                            "\"}\nbonds:\n  - {name: up, members: [m0, m1], mode: static}\n"
                            "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  engine.stop();
  engine::Engine split(config::parse_config(mixed, "split-sockets"));
  EXPECT_FALSE(split.port(0).single_pool_tx()) << "the host port sees both sockets' mbufs";
  EXPECT_FALSE(split.port(0).fast_free());
  EXPECT_TRUE(split.port(1).single_pool_tx());
  EXPECT_TRUE(split.port(2).single_pool_tx());
}

}  // namespace
}  // namespace braid::test
