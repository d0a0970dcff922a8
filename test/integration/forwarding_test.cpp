// The engine on real DPDK vdevs: every packet that enters is sent or counted, order within a
// queue is kept, and the counters match what the devices saw.
#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "trace/synthetic_trace.hpp"

namespace braid::test {
namespace {

using datapath::CounterTotals;
using datapath::DropReason;
using engine::Engine;

constexpr std::uint32_t kSequenceOffset = 40;  // inside the payload of a 64-byte frame
constexpr std::uint16_t kFrameBytes = 64;

config::Config forwarding_config(const std::string& a, const std::string& b,
                                 const std::string& extra = "") {
  return config::parse_config("ports:\n  - {name: a, device: \"" + a + "\"" + extra +
                                  "}\n  - {name: b, device: \"" + b + "\"" + extra +
                                  "}\ncross_connect: [[a, b]]\nworkers: {lcores: [1]}\n",
                              "integration");
}

// Injects `count` sequence-numbered frames into `into` and takes what the engine forwards out of
// `out`, checking that sequence numbers only ever increase (drops leave gaps, nothing reorders).
struct Stream {
  RingPort* into;
  RingPort* out;
  std::uint64_t count;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t last_sequence = 0;
  bool in_order = true;

  void pump() {
    rte_mbuf* burst[64];
    if (sent < count) {
      const auto want = static_cast<unsigned>(std::min<std::uint64_t>(64, count - sent));
      if (rte_pktmbuf_alloc_bulk(test_mempool(), burst, want) == 0) {
        for (unsigned i = 0; i < want; ++i) {
          char* data = rte_pktmbuf_append(burst[i], kFrameBytes);
          ASSERT_NE(data, nullptr);  // a fresh mbuf always has room for 64 bytes
          std::memset(data, 0, kFrameBytes);
          const std::uint64_t sequence = sent + i + 1;
          std::memcpy(data + kSequenceOffset, &sequence, sizeof sequence);
        }
        const unsigned queued =
            rte_ring_enqueue_burst(into->to_port(), reinterpret_cast<void**>(burst), want, nullptr);
        rte_pktmbuf_free_bulk(burst + queued, want - queued);
        sent += queued;
      }
    }
    const unsigned got =
        rte_ring_dequeue_burst(out->from_port(), reinterpret_cast<void**>(burst), 64, nullptr);
    for (unsigned i = 0; i < got; ++i) {
      std::uint64_t sequence = 0;
      std::memcpy(&sequence, rte_pktmbuf_mtod(burst[i], char*) + kSequenceOffset, sizeof sequence);
      in_order = in_order && sequence > last_sequence;
      last_sequence = sequence;
    }
    rte_pktmbuf_free_bulk(burst, got);
    received += got;
  }
};

template <typename Done>
void wait_until(Done done, std::chrono::seconds limit, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "timed out waiting for " << what;
  }
}

TEST(Forwarding, RingPortsConserveEveryPacketBothWays) {
  RingPort a(unique_name("ring_a")), b(unique_name("ring_b"));
  Engine engine(forwarding_config(a.name(), b.name()));
  engine.start();
  Stream a_to_b{&a, &b, 1'000'000};
  Stream b_to_a{&b, &a, 200'000};
  wait_until(
      [&] {
        a_to_b.pump();
        b_to_a.pump();
        return a_to_b.sent == a_to_b.count && b_to_a.sent == b_to_a.count &&
               engine.totals().rx() == a_to_b.count + b_to_a.count;
      },
      std::chrono::seconds(120), "all packets to be received");
  engine.stop();  // workers drain their TX buffers before returning
  for (int i = 0; i < 200; ++i) {
    a_to_b.pump();
    b_to_a.pump();
  }
  const CounterTotals totals = engine.totals();
  EXPECT_EQ(totals.rx_packets[a.port_id()], a_to_b.count);
  EXPECT_EQ(totals.rx_packets[b.port_id()], b_to_a.count);
  EXPECT_EQ(totals.tx_packets[b.port_id()], a_to_b.received);
  EXPECT_EQ(totals.tx_packets[a.port_id()], b_to_a.received);
  EXPECT_EQ(totals.buffered, 0u);
  EXPECT_EQ(totals.rx(), totals.tx() + totals.dropped());
  EXPECT_EQ(totals.dropped(), totals.drops[static_cast<std::size_t>(DropReason::kTxFull)]);
  EXPECT_TRUE(a_to_b.in_order);
  EXPECT_TRUE(b_to_a.in_order);
  std::printf("ring forwarding: %llu packets in, %llu out, %llu dropped (tx_full)\n",
              static_cast<unsigned long long>(totals.rx()),
              static_cast<unsigned long long>(totals.tx()),
              static_cast<unsigned long long>(totals.dropped()));
}

TEST(Forwarding, NullSourceIntoRingSinkAndRingSourceIntoNullSink) {
  RingPort ring(unique_name("ring_n"));
  const std::string null_device = unique_name("net_null_it") + ",size=64";
  Engine engine(forwarding_config(null_device, ring.name()));
  const std::uint16_t null_port = engine.port(0).id();
  engine.start();
  Stream ring_to_null{&ring, &ring, 100'000};  // out of the ring is the null source's traffic
  std::uint64_t from_null = 0;
  wait_until(
      [&] {
        ring_to_null.pump();
        from_null = ring_to_null.received;
        return from_null >= 1'000'000 && ring_to_null.sent == ring_to_null.count;
      },
      std::chrono::seconds(120), "a million packets from net_null");
  engine.stop();
  for (int i = 0; i < 200; ++i)
    ring_to_null.pump();
  const CounterTotals totals = engine.totals();
  // Everything net_null produced was either put on the ring (and taken by the test) or dropped.
  EXPECT_EQ(totals.tx_packets[ring.port_id()], ring_to_null.received);
  EXPECT_EQ(totals.rx(), totals.tx() + totals.dropped());
  EXPECT_EQ(totals.rx_packets[ring.port_id()], ring_to_null.count);
  // net_null's own TX counter agrees with what the engine says it sent there.
  EXPECT_EQ(engine.nic_counters(0).tx_packets, totals.tx_packets[null_port]);
  EXPECT_EQ(engine.nic_counters(0).rx_packets, totals.rx_packets[null_port]);
}

std::vector<std::vector<std::uint8_t>> read_pcap(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<std::vector<std::uint8_t>> frames;
  file.seekg(24);
  std::uint32_t header[4];
  while (file.read(reinterpret_cast<char*>(header), sizeof header)) {
    std::vector<std::uint8_t> frame(header[2]);
    file.read(reinterpret_cast<char*>(frame.data()), static_cast<std::streamsize>(frame.size()));
    frames.push_back(std::move(frame));
  }
  return frames;
}

TEST(Forwarding, PcapTraceComesOutByteForByteInOrder) {
  const auto dir = std::filesystem::temp_directory_path() /
                   unique_name("braid-it-pcap-" + std::to_string(getpid()) + "-");
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / "in.pcap").string();
  const std::string empty = (dir / "empty.pcap").string();
  const std::string out = (dir / "out.pcap").string();
  constexpr std::uint32_t kPackets = 50'000;
  trace::write_trace(trace, {.flows = 2000, .packets = kPackets, .frame_size = 128, .seed = 7});
  trace::write_trace(empty, {.flows = 1, .packets = 0});
  {
    const std::string a = unique_name("net_pcap_it") + ",rx_pcap=" + trace;
    const std::string b = unique_name("net_pcap_it") + ",rx_pcap=" + empty + ",tx_pcap=" + out;
    Engine engine(forwarding_config(a, b));
    engine.start();
    wait_until([&] { return engine.totals().rx() == kPackets; }, std::chrono::seconds(60),
               "the whole trace to be read");
    engine.stop();
    const CounterTotals totals = engine.totals();
    EXPECT_EQ(totals.tx(), kPackets);
    EXPECT_EQ(totals.dropped(), 0u);
  }  // closing the port flushes the output pcap
  const auto in_frames = read_pcap(trace);
  const auto out_frames = read_pcap(out);
  ASSERT_EQ(in_frames.size(), kPackets);
  ASSERT_EQ(out_frames.size(), kPackets);
  EXPECT_TRUE(in_frames == out_frames);
  std::filesystem::remove_all(dir);
}

TEST(Forwarding, MisconfiguredPortsFailWithTheirName) {
  try {
    Engine engine(forwarding_config("net_pcap_bad0,rx_pcap=/nonexistent.pcap", "net_null_bad0"));
    FAIL() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(
        std::string(error.what()).find("port \"a\" (net_pcap_bad0,rx_pcap=/nonexistent.pcap)"),
        std::string::npos)
        << error.what();
  }
  try {
    RingPort ring(unique_name("ring_q"));
    Engine engine(forwarding_config(ring.name(), unique_name("net_null_q"), ", rx_queues: 4"));
    FAIL() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("rx_queues 4"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace braid::test
