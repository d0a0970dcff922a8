// The parts that need DPDK headers (inline only, no EAL): Toeplitz against DPDK's rte_softrss,
// and the mbuf adapter over hand-built mbufs.
#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include <memory>
#include <random>

#include "flow/dpdk/mbuf_hash.hpp"
#include "flow/flow_hash.hpp"
#include "flow/l34_fast_path.hpp"
#include "flow/parser.hpp"
#include "frame_builder.hpp"

namespace braid::flow {
namespace {

// rte_softrss wants the tuple as host-order 32-bit words.
std::vector<std::uint32_t> host_words(ByteSpan bytes) {
  std::vector<std::uint32_t> words;
  for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4)
    words.push_back(load_be32(bytes, i));
  return words;
}

TEST(ToeplitzVsDpdk, MatchesRteSoftrssOnRandomTuples) {
  std::mt19937_64 rng(11);
  std::array<std::uint8_t, 40> key;
  for (int round = 0; round < 4; ++round) {
    if (round == 0) {
      key = kMicrosoftRssKey;
    } else {
      for (auto& byte : key)
        byte = static_cast<std::uint8_t>(rng());
    }
    const Toeplitz toeplitz(key);
    for (std::size_t tuple_bytes : {8U, 12U, 32U, 36U}) {  // IPv4/IPv6, with and without ports
      for (int i = 0; i < 500; ++i) {
        std::vector<std::uint8_t> tuple(tuple_bytes);
        for (auto& byte : tuple)
          byte = static_cast<std::uint8_t>(rng());
        std::vector<std::uint32_t> words = host_words(tuple);
        const std::uint32_t expected =
            rte_softrss(words.data(), static_cast<std::uint32_t>(words.size()), key.data());
        ASSERT_EQ(toeplitz.hash(tuple), expected) << tuple_bytes;
      }
    }
  }
}

TEST(ToeplitzVsDpdk, PolicyTupleMatchesRteSoftrss) {
  const FlowHasher hasher(HashPolicy::toeplitz);
  const auto frame = test::FrameBuilder()
                         .ethernet(test::kMacB, test::kMacA)
                         .ipv6(test::kIpv6A, test::kIpv6B)
                         .udp(1234, 5678)
                         .build();
  const FlowKey key = parse_flow_key(ByteSpan(frame));
  const RssTuple tuple = make_rss_tuple(key, false);
  ASSERT_EQ(tuple.size, 36U);
  std::vector<std::uint32_t> words = host_words(tuple.span());
  EXPECT_EQ(hasher.hash(key),
            rte_softrss(words.data(), RTE_THASH_V6_L4_LEN, kMicrosoftRssKey.data()));
}

// A single-segment mbuf over a caller-owned buffer: enough for rte_pktmbuf_mtod/data_len.
struct FakeMbuf {
  explicit FakeMbuf(std::vector<std::uint8_t> bytes) : data(std::move(bytes)) {
    mbuf.buf_addr = data.data();
    mbuf.data_off = 0;
    mbuf.data_len = static_cast<std::uint16_t>(data.size());
    mbuf.pkt_len = static_cast<std::uint32_t>(data.size());
    mbuf.nb_segs = 1;
  }
  std::vector<std::uint8_t> data;
  // On the heap: rte_mbuf's zero-length marker arrays may not be members (-Wpedantic).
  std::unique_ptr<rte_mbuf> owner = std::make_unique<rte_mbuf>();
  rte_mbuf& mbuf = *owner;
};

std::vector<std::uint8_t> tcp_frame(std::uint16_t src_port) {
  return test::FrameBuilder()
      .ethernet(test::kMacB, test::kMacA)
      .ipv4(test::kIpv4A, test::kIpv4B)
      .tcp(src_port, 3260)
      .build(64);
}

TEST(MbufHash, NicRssUsesTheNicHashWhenValid) {
  const FlowHasher hasher(HashPolicy::nic_rss, HashPolicy::l34);
  FakeMbuf with_hash(tcp_frame(1));
  with_hash.mbuf.ol_flags = RTE_MBUF_F_RX_RSS_HASH;
  with_hash.mbuf.hash.rss = 0xC0FFEE;
  FakeMbuf without_hash(tcp_frame(1));
  without_hash.mbuf.hash.rss = 0xC0FFEE;  // not flagged valid: ignored
  EXPECT_EQ(dpdk::mbuf_hash(hasher, &with_hash.mbuf), 0xC0FFEEU);
  EXPECT_EQ(dpdk::mbuf_hash(hasher, &without_hash.mbuf),
            FlowHasher(HashPolicy::l34).hash_frame(ByteSpan(without_hash.data)));
}

TEST(MbufHash, BurstEqualsPerPacketForEveryPolicy) {
  std::vector<FakeMbuf> mbufs;
  mbufs.reserve(45);
  for (std::uint16_t i = 0; i < 45; ++i) {
    mbufs.emplace_back(tcp_frame(i));
    if (i % 2 == 0) {
      mbufs.back().mbuf.ol_flags = RTE_MBUF_F_RX_RSS_HASH;
      mbufs.back().mbuf.hash.rss = 1000U + i;
    }
  }
  std::vector<rte_mbuf*> pointers;
  for (auto& fake : mbufs)
    pointers.push_back(&fake.mbuf);
  for (HashPolicy policy : kAllHashPolicies) {
    const FlowHasher hasher(policy);
    std::vector<std::uint32_t> hashes(pointers.size());
    dpdk::mbuf_hash_burst(hasher, pointers.data(), static_cast<std::uint16_t>(pointers.size()),
                          hashes.data());
    for (std::size_t i = 0; i < pointers.size(); ++i) {
      EXPECT_EQ(hashes[i], dpdk::mbuf_hash(hasher, pointers[i])) << to_string(policy) << i;
      if (policy == HashPolicy::nic_rss && i % 2 == 0) {
        EXPECT_EQ(hashes[i], 1000U + i);
      }
    }
  }
}

// The frames of a storage VLAN and worse, in every order: the burst (four-lane pass, the lanes it
// declines, the parser) must give each frame the parser's hash, and nic-rss the same where the
// NIC left a frame unhashed.
TEST(MbufHash, MixedBurstsHashAsTheParserDoes) {
  using test::FrameBuilder;
  std::vector<std::vector<std::uint8_t>> kinds = {
      tcp_frame(1),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x8100, 100)
          .ipv4(test::kIpv4A, test::kIpv4B)
          .udp(5, 3260)
          .build(64),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x88A8, 7)
          .vlan(0x8100, 100)
          .ipv4(test::kIpv4A, test::kIpv4B)
          .tcp(6, 4420)
          .build(64),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .ipv6(test::kIpv6A, test::kIpv6B)
          .udp(7, 2049)
          .build(64),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x8100, 100)
          .ipv6(test::kIpv6A, test::kIpv6B)
          .tcp(8, 3260)
          .build(),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x8100, 100)
          .ipv4(test::kIpv4A, test::kIpv4B)
          .udp(9, 4791)
          .bth(0x123456)
          .build(),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .ipv6(test::kIpv6A, test::kIpv6B)
          .udp(12, 4791)
          .bth(0x654321)
          .build(),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .ipv6(test::kIpv6A, test::kIpv6B)
          .ipv6_extension(kIpProtoDestOptions)
          .tcp(13, 4420)
          .build(),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x8100, 1)
          .vlan(0x8100, 2)
          .vlan(0x8100, 3)
          .ipv4(test::kIpv4A, test::kIpv4B)
          .udp(10, 80)
          .build(64),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x8100, 100)
          .ethertype(0x0806)
          .payload(28)
          .build(),
      FrameBuilder()
          .ethernet(test::kMacB, test::kMacA)
          .vlan(0x8100, 100)
          .ipv4(test::kIpv4A, test::kIpv4B, 0x2000)
          .udp(11, 80)
          .build(64),
  };
  std::mt19937 random(5);
  for (const std::uint16_t count : {1, 3, 4, 5, 31, 32, 33, 64, 100}) {
    std::vector<FakeMbuf> mbufs;
    mbufs.reserve(count);
    for (std::uint16_t i = 0; i < count; ++i) {
      std::vector<std::uint8_t> frame = kinds[random() % kinds.size()];
      frame[frame.size() - 1] ^= static_cast<std::uint8_t>(i);  // payload only
      mbufs.emplace_back(std::move(frame));
      mbufs.back().mbuf.data_len = static_cast<std::uint16_t>(
          mbufs.back().data.size() - (random() % 8 == 0 ? random() % 40 : 0));  // some cut short
    }
    std::vector<rte_mbuf*> pointers;
    for (auto& fake : mbufs)
      pointers.push_back(&fake.mbuf);
    for (HashPolicy policy : {HashPolicy::l34, HashPolicy::nic_rss}) {
      const FlowHasher hasher(policy);
      std::vector<std::uint32_t> hashes(count);
      dpdk::mbuf_hash_burst(hasher, pointers.data(), count, hashes.data());
      for (std::uint16_t i = 0; i < count; ++i) {
        const ByteSpan frame(mbufs[i].data.data(), mbufs[i].mbuf.data_len);
        ASSERT_EQ(hashes[i], FlowHasher(HashPolicy::l34).hash_frame(frame))
            << to_string(policy) << " packet " << i << " of " << count;
      }
      // With a lane visitor (the classifier's way in): the same hashes, and every packet shown
      // once, in order, as its first segment; taken only where the l34 fast path takes it.
      std::vector<std::uint32_t> visited_hashes(count);
      std::vector<std::pair<ByteSpan, bool>> seen;
      const auto record = [](void* context, const L34Lanes& lanes) {
        auto& out = *static_cast<std::vector<std::pair<ByteSpan, bool>>*>(context);
        EXPECT_EQ(lanes.start, out.size());
        EXPECT_LE(lanes.count, kL34Lanes);
        for (unsigned i = 0; i < lanes.count; ++i)
          out.emplace_back(lanes.frames[i], (lanes.taken >> i & 1) != 0);
        EXPECT_EQ(lanes.taken >> lanes.count, 0u);
      };
      dpdk::mbuf_hash_burst(hasher, pointers.data(), count, visited_hashes.data(),
                            LaneVisitor{record, &seen});
      EXPECT_EQ(visited_hashes, hashes);
      ASSERT_EQ(seen.size(), count);
      std::size_t taken = 0;
      for (std::uint16_t i = 0; i < count; ++i) {
        EXPECT_EQ(seen[i].first.data(), mbufs[i].data.data());
        EXPECT_EQ(seen[i].first.size(), mbufs[i].mbuf.data_len);
        std::uint32_t hash = 0;
        if (seen[i].second) {
          EXPECT_TRUE(try_hash_l34(seen[i].first, hash)) << "packet " << i;
        }
        taken += seen[i].second ? 1 : 0;
      }
      if (policy == HashPolicy::l34 && count >= 32) {
        EXPECT_GT(taken, 0u);
      } else if (policy != HashPolicy::l34) {
        EXPECT_EQ(taken, 0u);  // another policy: the visitor reads every frame itself
      }
    }
  }
}

TEST(MbufHash, ParsesOnlyTheFirstSegment) {
  auto frame = tcp_frame(9);
  FakeMbuf short_segment(frame);
  short_segment.mbuf.data_len = 30;  // headers continue in a second segment
  short_segment.mbuf.pkt_len = static_cast<std::uint32_t>(frame.size());
  FlowKey key;
  dpdk::mbuf_flow_key(&short_segment.mbuf, key);
  EXPECT_EQ(key.status, ParseStatus::truncated_l3);
}

}  // namespace
}  // namespace braid::flow
