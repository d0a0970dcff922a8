// Toeplitz against Microsoft's RSS verification suite ("Verifying the RSS Hash Calculation",
// NDIS documentation; 40-byte key kMicrosoftRssKey), directly and through the toeplitz policy.
#include "flow/toeplitz.hpp"

#include <gtest/gtest.h>

#include <random>

#include "flow/flow_hash.hpp"
#include "frame_builder.hpp"

namespace braid::flow {
namespace {

struct Ipv4Vector {
  test::Ipv4 dst;
  std::uint16_t dst_port;
  test::Ipv4 src;
  std::uint16_t src_port;
  std::uint32_t hash_l3;
  std::uint32_t hash_l4;
};

constexpr Ipv4Vector kIpv4Vectors[] = {
    {{161, 142, 100, 80}, 1766, {66, 9, 149, 187}, 2794, 0x323e8fc2, 0x51ccc178},
    {{65, 69, 140, 83}, 4739, {199, 92, 111, 2}, 14230, 0xd718262a, 0xc626b0ea},
    {{12, 22, 207, 184}, 38024, {24, 19, 198, 95}, 12898, 0xd2d0a5de, 0x5c2b394a},
    {{209, 142, 163, 6}, 2217, {38, 27, 205, 30}, 48228, 0x82989176, 0xafc7327f},
    {{202, 188, 127, 2}, 1303, {153, 39, 163, 191}, 44251, 0x5d1809c5, 0x10e828a2},
};

struct Ipv6Vector {
  test::Ipv6 dst;
  std::uint16_t dst_port;
  test::Ipv6 src;
  std::uint16_t src_port;
  std::uint32_t hash_l3;
  std::uint32_t hash_l4;
};

constexpr Ipv6Vector kIpv6Vectors[] = {
    // 3ffe:2501:200:3::1 (1766) <- 3ffe:2501:200:1fff::7 (2794)
    {{0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01},
     1766,
     {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07},
     2794,
     0x2cc18cd5,
     0x40207d3d},
    // ff02::1 (4739) <- 3ffe:501:8::260:97ff:fe40:efab (14230)
    {{0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01},
     4739,
     {0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0, 0, 0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab},
     14230,
     0x0f0c461c,
     0xdde51bbf},
    // fe80::200:f8ff:fe21:67cf (38024) <- 3ffe:1900:4545:3:200:f8ff:fe21:67cf (44251)
    {{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf},
     38024,
     {0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67,
      0xcf},
     44251,
     0x4b61e985,
     0x02d1feef},
};

template <std::size_t N>
std::vector<std::uint8_t> rss_input(const std::array<std::uint8_t, N>& src,
                                    const std::array<std::uint8_t, N>& dst, std::uint16_t src_port,
                                    std::uint16_t dst_port, bool with_ports) {
  std::vector<std::uint8_t> input(src.begin(), src.end());
  input.insert(input.end(), dst.begin(), dst.end());
  if (with_ports) {
    for (std::uint16_t port : {src_port, dst_port}) {
      input.push_back(static_cast<std::uint8_t>(port >> 8));
      input.push_back(static_cast<std::uint8_t>(port));
    }
  }
  return input;
}

TEST(Toeplitz, MicrosoftIpv4Vectors) {
  const Toeplitz toeplitz(kMicrosoftRssKey);
  for (const auto& v : kIpv4Vectors) {
    EXPECT_EQ(toeplitz.hash(rss_input(v.src, v.dst, v.src_port, v.dst_port, false)), v.hash_l3);
    EXPECT_EQ(toeplitz.hash(rss_input(v.src, v.dst, v.src_port, v.dst_port, true)), v.hash_l4);
  }
}

TEST(Toeplitz, MicrosoftIpv6Vectors) {
  const Toeplitz toeplitz(kMicrosoftRssKey);
  for (const auto& v : kIpv6Vectors) {
    EXPECT_EQ(toeplitz.hash(rss_input(v.src, v.dst, v.src_port, v.dst_port, false)), v.hash_l3);
    EXPECT_EQ(toeplitz.hash(rss_input(v.src, v.dst, v.src_port, v.dst_port, true)), v.hash_l4);
  }
}

// The toeplitz policy on real frames: TCP frames give the "with TCP" column; frames without
// ports (ICMP, fragments) give the "IP only" column, as a NIC computes it.
TEST(Toeplitz, PolicyOverFramesMatchesVectors) {
  const FlowHasher hasher(HashPolicy::toeplitz);
  for (const auto& v : kIpv4Vectors) {
    const auto tcp = test::FrameBuilder()
                         .ethernet(test::kMacB, test::kMacA)
                         .ipv4(v.src, v.dst)
                         .tcp(v.src_port, v.dst_port)
                         .build(64);
    const auto icmp = test::FrameBuilder()
                          .ethernet(test::kMacB, test::kMacA)
                          .ipv4(v.src, v.dst)
                          .icmp(8, 0)
                          .build(64);
    const auto fragment = test::FrameBuilder()
                              .ethernet(test::kMacB, test::kMacA)
                              .ipv4(v.src, v.dst, 0x2000)
                              .tcp(v.src_port, v.dst_port)
                              .build(64);
    EXPECT_EQ(hasher.hash_frame(ByteSpan(tcp)), v.hash_l4);
    EXPECT_EQ(hasher.hash_frame(ByteSpan(icmp)), v.hash_l3);
    EXPECT_EQ(hasher.hash_frame(ByteSpan(fragment)), v.hash_l3);
  }
  for (const auto& v : kIpv6Vectors) {
    const auto tcp = test::FrameBuilder()
                         .ethernet(test::kMacB, test::kMacA)
                         .ipv6(v.src, v.dst)
                         .tcp(v.src_port, v.dst_port)
                         .build();
    const auto icmp = test::FrameBuilder()
                          .ethernet(test::kMacB, test::kMacA)
                          .ipv6(v.src, v.dst)
                          .icmp(128, 0)
                          .build();
    EXPECT_EQ(hasher.hash_frame(ByteSpan(tcp)), v.hash_l4);
    EXPECT_EQ(hasher.hash_frame(ByteSpan(icmp)), v.hash_l3);
  }
}

TEST(Toeplitz, TableMatchesBitwiseForOtherKeyLengths) {
  std::mt19937_64 rng(7);
  for (std::size_t key_bytes : {5U, 16U, 40U, 52U}) {
    std::vector<std::uint8_t> key(key_bytes);
    for (auto& byte : key)
      byte = static_cast<std::uint8_t>(rng());
    const Toeplitz toeplitz(key);
    EXPECT_EQ(toeplitz.max_input_bytes(), key_bytes - 4);
    for (int round = 0; round < 200; ++round) {
      std::vector<std::uint8_t> input(rng() % (key_bytes - 3));
      for (auto& byte : input)
        byte = static_cast<std::uint8_t>(rng());
      EXPECT_EQ(toeplitz.hash(input), Toeplitz::hash_bitwise(key, input)) << key_bytes;
    }
  }
}

}  // namespace
}  // namespace braid::flow
