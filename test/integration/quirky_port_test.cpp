// QuirkyPort (quirky_port.hpp) on a bare port: each NIC behaviour it emulates does what a real
// driver does, and everything the "NIC" holds goes back to its pool. Then braid's LACP bond on
// two such ports, against a NIC that keeps what it sent.
#include "quirky_port.hpp"

#include <gtest/gtest.h>
#include <rte_ethdev.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "engine/engine.hpp"
#include "lacp/frame.hpp"

namespace braid::test {
namespace {

constexpr std::uint16_t kDescriptors = 64;
constexpr unsigned kPoolMbufs = 255;
constexpr std::uint16_t kFrameBytes = 64;

// A small pool without a per-lcore cache, so rte_mempool_avail_count is exact.
struct Pool {
  Pool()
      : pool(rte_pktmbuf_pool_create(unique_name("qpool").c_str(), kPoolMbufs, 0, 0,
                                     RTE_MBUF_DEFAULT_BUF_SIZE, 0)) {}
  ~Pool() { rte_mempool_free(pool); }
  unsigned out() const { return kPoolMbufs - rte_mempool_avail_count(pool); }
  rte_mempool* pool;
};

// A frame whose bytes all say `tag`, so a copy can be told from another.
rte_mbuf* frame(rte_mempool* pool, std::uint8_t tag, std::uint16_t bytes = kFrameBytes) {
  rte_mbuf* mbuf = rte_pktmbuf_alloc(pool);
  if (mbuf == nullptr) return nullptr;
  char* data = rte_pktmbuf_append(mbuf, bytes);
  std::memset(data, tag, bytes);
  return mbuf;
}

// Configures and starts the port as an application would, with `tx_queues` queues of
// kDescriptors, and attaches the quirks. Stops it on destruction (the QuirkyPort closes it).
class BarePort {
 public:
  explicit BarePort(const QuirkySettings& settings, std::uint16_t tx_queues = 2,
                    bool attach_first = false)
      : port_(unique_name("quirky"), settings) {
    if (attach_first) port_.attach(kDescriptors);
    rte_eth_conf conf{};
    const std::uint16_t id = port_.port_id();
    EXPECT_EQ(rte_eth_dev_configure(id, 1, tx_queues, &conf), 0);
    EXPECT_EQ(rte_eth_rx_queue_setup(id, 0, kDescriptors, 0, nullptr, pool_.pool), 0);
    for (std::uint16_t q = 0; q < tx_queues; ++q)
      EXPECT_EQ(rte_eth_tx_queue_setup(id, q, kDescriptors, 0, nullptr), 0);
    EXPECT_EQ(rte_eth_dev_start(id), 0);
    if (!attach_first) port_.attach(kDescriptors);
  }
  ~BarePort() { rte_eth_dev_stop(port_.port_id()); }

  QuirkyPort& port() { return port_; }
  Pool& pool() { return pool_; }

  // Sends one frame; returns whether the port took it (a refused one is freed here).
  bool send_one(std::uint16_t queue = 0, std::uint8_t tag = 0) {
    rte_mbuf* mbuf = frame(pool_.pool, tag);
    if (mbuf == nullptr) return false;
    if (rte_eth_tx_burst(port_.port_id(), queue, &mbuf, 1) == 1) return true;
    rte_pktmbuf_free(mbuf);
    return false;
  }

  unsigned drain() {
    unsigned frames = 0;
    port_.drain([&](const rte_mbuf*) { ++frames; });
    return frames;
  }

 private:
  Pool pool_;  // outlives the port, which may still hold its mbufs
  QuirkyPort port_;
};

QuirkySettings with_free(TxFree policy) {
  QuirkySettings settings;
  settings.tx_free = policy;
  return settings;
}

TEST(QuirkyPort, SlotReuseHoldsEveryDescriptorUntilItsSlotIsUsedAgain) {
  BarePort bare(with_free(TxFree::kOnSlotReuse));
  for (unsigned i = 0; i < kDescriptors; ++i)
    ASSERT_TRUE(bare.send_one(0, static_cast<std::uint8_t>(i)));
  EXPECT_EQ(bare.pool().out(), kDescriptors) << "every slot holds the mbuf it sent";
  EXPECT_EQ(bare.port().stats(0).retained, kDescriptors);
  EXPECT_EQ(bare.port().stats(0).freed, 0u);

  rte_mbuf* next = frame(bare.pool().pool, 0xee);
  ASSERT_NE(next, nullptr);
  const unsigned out_before = bare.pool().out();
  ASSERT_EQ(rte_eth_tx_burst(bare.port().port_id(), 0, &next, 1), 1);
  EXPECT_EQ(out_before - bare.pool().out(), 1u) << "the 65th send frees exactly slot 0's mbuf";
  EXPECT_EQ(bare.port().stats(0).freed, 1u);
  EXPECT_EQ(bare.port().stats(0).retained, kDescriptors);
  EXPECT_EQ(bare.drain(), kDescriptors + 1u) << "every packet went out (as a copy)";
  EXPECT_EQ(bare.pool().out(), kDescriptors) << "taking the copies frees no original";
}

TEST(QuirkyPort, BatchFreesThirtyTwoAtATimeAndABurstTakesOnlyFreeSlots) {
  QuirkySettings settings = with_free(TxFree::kBatch);  // rs_thresh = free_thresh = 32
  BarePort bare(settings);
  std::vector<unsigned> freed_at;  // 1-based sends at which mbufs were freed
  std::uint64_t freed = 0;
  for (unsigned send = 1; send <= 200; ++send) {
    ASSERT_TRUE(bare.send_one());
    const QuirkyQueueStats stats = bare.port().stats(0);
    ASSERT_LE(stats.retained, kDescriptors);
    ASSERT_EQ(bare.pool().out(), stats.retained);
    if (stats.freed != freed) {
      EXPECT_EQ(stats.freed - freed, 32u) << "send " << send;
      freed_at.push_back(send);
      freed = stats.freed;
    }
    bare.drain();
  }
  // 33 held leave 31 of 64 slots free, under free_thresh: the 34th send frees the oldest 32,
  // and every 32 sends after it the next 32.
  EXPECT_EQ(freed_at, (std::vector<unsigned>{34, 66, 98, 130, 162, 194}));

  // A fresh queue takes a full ring in one burst; the next burst gets only the 32 slots the batch
  // free makes, as i40e's and ixgbe's vector paths return it.
  rte_mbuf* burst[kDescriptors];
  for (auto& mbuf : burst)
    mbuf = frame(bare.pool().pool, 1);
  EXPECT_EQ(rte_eth_tx_burst(bare.port().port_id(), 1, burst, kDescriptors), kDescriptors);
  for (auto& mbuf : burst)
    mbuf = frame(bare.pool().pool, 2);
  const std::uint16_t sent = rte_eth_tx_burst(bare.port().port_id(), 1, burst, kDescriptors);
  EXPECT_EQ(sent, 32u);
  rte_pktmbuf_free_bulk(burst + sent, kDescriptors - sent);
}

TEST(QuirkyPort, PartialBurstsTakeAtMostMaxTxBurstAndLeaveTheRestToTheCaller) {
  for (const TxFree policy : {TxFree::kImmediate, TxFree::kOnSlotReuse}) {
    QuirkySettings settings = with_free(policy);
    settings.max_tx_burst = 8;
    BarePort bare(settings);
    rte_mbuf* burst[20];
    rte_mbuf* originals[20];
    for (unsigned i = 0; i < 20; ++i)
      originals[i] = burst[i] = frame(bare.pool().pool, static_cast<std::uint8_t>(i));
    const std::uint16_t sent = rte_eth_tx_burst(bare.port().port_id(), 0, burst, 20);
    EXPECT_EQ(sent, 8u);
    for (unsigned i = sent; i < 20; ++i)
      EXPECT_EQ(burst[i], originals[i]) << "the caller keeps packet " << i << " as it gave it";
    rte_pktmbuf_free_bulk(burst + sent, 20u - sent);
    const QuirkyQueueStats stats = bare.port().stats(0);
    EXPECT_EQ(stats.offered, 20u);
    EXPECT_EQ(stats.accepted, 8u);
    EXPECT_EQ(stats.refused, 12u);
    EXPECT_EQ(bare.drain(), 8u);
  }
}

TEST(QuirkyPort, RefuseNextRefusesExactlyThatManyPackets) {
  BarePort bare(with_free(TxFree::kOnSlotReuse));
  bare.port().refuse_next(0, 3);
  std::vector<bool> taken;
  for (int i = 0; i < 5; ++i)
    taken.push_back(bare.send_one(0));
  EXPECT_EQ(taken, (std::vector<bool>{false, false, false, true, true}));
  EXPECT_EQ(bare.port().stats(0).refused, 3u);

  // In a burst, the refusals cut its tail: 10 offered, 4 refused, 6 taken.
  bare.port().refuse_next(1, 4);
  rte_mbuf* burst[10];
  for (auto& mbuf : burst)
    mbuf = frame(bare.pool().pool, 7);
  const std::uint16_t sent = rte_eth_tx_burst(bare.port().port_id(), 1, burst, 10);
  EXPECT_EQ(sent, 6u);
  rte_pktmbuf_free_bulk(burst + sent, 10u - sent);
  EXPECT_TRUE(bare.send_one(1)) << "refusals are used up";
  EXPECT_EQ(bare.port().stats(1).refused, 4u);
  EXPECT_EQ(bare.port().stats(0).refused, 3u) << "refusals are per queue";
}

TEST(QuirkyPort, CopiesArriveIntactQueueByQueueWhileTheOriginalsStayHeld) {
  BarePort bare(with_free(TxFree::kOnSlotReuse));
  // One single-segment frame per queue, and a two-segment one.
  rte_mbuf* first = frame(bare.pool().pool, 0xa1, 100);
  rte_mbuf* second = frame(bare.pool().pool, 0xb2, 60);
  rte_mbuf* tail = frame(bare.pool().pool, 0xc3, 40);
  ASSERT_EQ(rte_pktmbuf_chain(second, tail), 0);
  ASSERT_EQ(rte_eth_tx_burst(bare.port().port_id(), 0, &first, 1), 1);
  ASSERT_EQ(rte_eth_tx_burst(bare.port().port_id(), 1, &second, 1), 1);
  EXPECT_EQ(bare.pool().out(), 3u) << "the originals are held, all segments";

  std::vector<std::vector<std::uint8_t>> seen;
  bare.port().drain([&](const rte_mbuf* copy) {
    EXPECT_NE(copy->pool, bare.pool().pool) << "a copy travels, not the original";
    std::vector<std::uint8_t> buffer(copy->pkt_len);
    // rte_pktmbuf_read copies only when the data is not contiguous; it returns where it is.
    const auto* bytes =
        static_cast<const std::uint8_t*>(rte_pktmbuf_read(copy, 0, copy->pkt_len, buffer.data()));
    seen.emplace_back(bytes, bytes + copy->pkt_len);
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::vector<std::uint8_t>(100, 0xa1));
  std::vector<std::uint8_t> chained(60, 0xb2);
  chained.insert(chained.end(), 40, 0xc3);
  EXPECT_EQ(seen[1], chained);
  EXPECT_EQ(bare.pool().out(), 3u);
}

TEST(QuirkyPort, ReleaseAndDestructionReturnEverythingHeld) {
  for (const TxFree policy : {TxFree::kOnSlotReuse, TxFree::kBatch}) {
    Pool pool;  // outlives the port, which holds its mbufs until it is destroyed
    {
      QuirkyPort port(unique_name("quirky"), with_free(policy));
      rte_eth_conf conf{};
      ASSERT_EQ(rte_eth_dev_configure(port.port_id(), 1, 2, &conf), 0);
      ASSERT_EQ(rte_eth_rx_queue_setup(port.port_id(), 0, kDescriptors, 0, nullptr, pool.pool), 0);
      for (std::uint16_t q = 0; q < 2; ++q)
        ASSERT_EQ(rte_eth_tx_queue_setup(port.port_id(), q, kDescriptors, 0, nullptr), 0);
      ASSERT_EQ(rte_eth_dev_start(port.port_id()), 0);
      port.attach(kDescriptors);
      for (unsigned i = 0; i < 40; ++i) {
        rte_mbuf* mbuf = frame(pool.pool, 1);
        ASSERT_EQ(rte_eth_tx_burst(port.port_id(), i % 2, &mbuf, 1), 1);
      }
      EXPECT_EQ(pool.out(), 40u);
      port.release_all();
      EXPECT_EQ(pool.out(), 0u) << "release_all frees what the NIC held";
      EXPECT_EQ(port.total().retained, 0u);
      EXPECT_EQ(port.total().freed, 40u);
      for (unsigned i = 0; i < 50; ++i) {
        rte_mbuf* mbuf = frame(pool.pool, 2);
        ASSERT_EQ(rte_eth_tx_burst(port.port_id(), i % 2, &mbuf, 1), 1);
      }
      EXPECT_GT(pool.out(), 0u);
      rte_eth_dev_stop(port.port_id());
      // The copies stay on the rings: the destructor frees them with the held originals.
    }
    EXPECT_EQ(pool.out(), 0u) << "destruction frees what the NIC held";
  }
}

TEST(QuirkyPort, CallbacksAttachedBeforeConfigureSurviveItAndTheSocketIsReported) {
  QuirkySettings settings = with_free(TxFree::kOnSlotReuse);
  settings.numa_node = 1;
  BarePort bare(settings, 2, /*attach_first=*/true);
  EXPECT_EQ(rte_eth_dev_socket_id(bare.port().port_id()), 1);
  ASSERT_TRUE(bare.send_one(1));
  EXPECT_EQ(bare.port().stats(1).retained, 1u) << "configure and queue setup kept the callback";
  rte_eth_txq_info info{};
  EXPECT_EQ(rte_eth_tx_queue_info_get(bare.port().port_id(), 0, &info), -ENOTSUP)
      << "net_ring now reports its descriptors: attach() could read them (quirky_port.hpp)";
}

TEST(QuirkyPort, ARetainingPolicyNeedsTheDescriptorCount) {
  QuirkyPort port(unique_name("quirky"), with_free(TxFree::kOnSlotReuse));
  EXPECT_THROW(port.attach(), std::invalid_argument);
}

// braid's LACP bond on two QuirkyPort members and no partner: every member sends a LACPDU every
// fast periodic time (1 s, 802.1AX 6.4.13: with no partner heard, the partner's admin state says
// short timeout). A fake clock moves 1 s per control poll, so thousands of periods take seconds.
constexpr unsigned kPeriods = 3000;
constexpr std::uint64_t kSecondNs = 1'000'000'000;

struct UnansweredLacp {
  std::vector<std::uint64_t> lacpdus = std::vector<std::uint64_t>(2, 0);  // per member
  std::vector<unsigned> last_period = std::vector<unsigned>(2, 0);        // the last with a LACPDU
  bond::BondCounters bond;
};

UnansweredLacp run_unanswered_lacp(TxFree policy) {
  RingPort host(unique_name("qhost"));
  std::vector<std::unique_ptr<QuirkyPort>> members;
  for (int m = 0; m < 2; ++m)
    members.push_back(std::make_unique<QuirkyPort>(unique_name("qlacp"), with_free(policy)));
  std::string yaml = "ports:\n  - {name: host, device: \"" + host.name() + "\"}\n";
  for (std::size_t m = 0; m < members.size(); ++m)
    yaml += "  - {name: m" + std::to_string(m) + ", device: \"" + members[m]->name() + "\"}\n";
  yaml +=
      "bonds:\n  - {name: up, members: [m0, m1], mode: lacp}\n"
      "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
  auto engine = std::make_unique<engine::Engine>(config::parse_config(yaml, "quirky-lacp"));
  // The engine configured and started the members; the quirks go on before anything sends, with
  // the descriptor counts braid gave each queue (net_ring cannot tell them).
  for (std::size_t m = 0; m < members.size(); ++m) {
    const drivers::EthdevPort& port = engine->port(m + 1);
    std::vector<std::uint16_t> per_queue(port.tx_queues(), port.tx_descriptors());
    if (port.control_tx_descriptors() != 0) per_queue.back() = port.control_tx_descriptors();
    members[m]->attach(per_queue);
  }
  engine->start();

  UnansweredLacp run;
  std::uint64_t now = monotonic_ns();
  for (unsigned period = 1; period <= kPeriods; ++period) {
    now += kSecondNs;
    engine->poll_control(now);
    for (std::size_t m = 0; m < members.size(); ++m) {
      members[m]->drain([&](const rte_mbuf* frame) {
        const lacp::DecodedFrame decoded = lacp::decode_slow_frame(
            ByteSpan(rte_pktmbuf_mtod(frame, const std::uint8_t*), frame->data_len));
        if (decoded.kind != lacp::FrameKind::kLacpdu) return;
        ++run.lacpdus[m];
        run.last_period[m] = period;
      });
    }
  }
  run.bond = engine->bond(0).counters();
  std::printf(
      "unanswered LACP, %u periods: LACPDUs m0 %llu (last in period %u), m1 %llu (last %u); "
      "control_tx %llu, control_tx_failed %llu; the NICs hold m0 %llu, m1 %llu\n",
      kPeriods, static_cast<unsigned long long>(run.lacpdus[0]), run.last_period[0],
      static_cast<unsigned long long>(run.lacpdus[1]), run.last_period[1],
      static_cast<unsigned long long>(run.bond.control_tx),
      static_cast<unsigned long long>(run.bond.control_tx_failed),
      static_cast<unsigned long long>(members[0]->total().retained),
      static_cast<unsigned long long>(members[1]->total().retained));
  engine.reset();  // stops the ports before the QuirkyPorts close them
  return run;
}

void expect_lacpdus_every_period(const UnansweredLacp& run) {
  for (std::size_t m = 0; m < run.lacpdus.size(); ++m) {
    EXPECT_GE(run.lacpdus[m], kPeriods - kPeriods / 100) << "member " << m;
    EXPECT_GE(run.last_period[m], kPeriods - 2) << "member " << m << " stopped sending";
  }
  EXPECT_EQ(run.bond.control_tx_failed, 0u);
}

// The harness itself: on a NIC that frees at once, the fake clock gives a LACPDU per period.
TEST(QuirkyPortLacp, AFakeClockSendsALacpduEveryPeriodOnANicThatFreesAtOnce) {
  expect_lacpdus_every_period(run_unanswered_lacp(TxFree::kImmediate));
}

// On a NIC that keeps each sent mbuf until its descriptor slot is used again, each member's
// control TX queue holds a queue's worth of LACPDUs for good. With a control queue of 1024
// descriptors and a pool of 1023 mbufs shared by every member, the pool ran dry after ~511
// LACPDUs per member and nothing was sent again (issue 13 item 2); the control queue is short
// now and the pool sized from the control queues (engine.cpp).
TEST(QuirkyPortLacp, LacpdusKeepFlowingWhenTheNicHoldsWhatItSent) {
  expect_lacpdus_every_period(run_unanswered_lacp(TxFree::kOnSlotReuse));
}

}  // namespace
}  // namespace braid::test
