#include "flow/l34_fast_path.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "flow/flow_hash.hpp"
#include "flow/l34_fast_path_x4.hpp"

namespace braid::flow {
namespace {

std::vector<std::uint8_t> ipv4_frame(std::mt19937& random, std::uint8_t protocol,
                                     std::size_t size) {
  std::vector<std::uint8_t> frame(size);
  for (auto& byte : frame)
    byte = static_cast<std::uint8_t>(random());
  frame[12] = 0x08;
  frame[13] = 0x00;
  frame[14] = 0x45;
  const std::size_t total = size - 14;
  frame[16] = static_cast<std::uint8_t>(total >> 8);
  frame[17] = static_cast<std::uint8_t>(total);
  frame[20] = 0x40;  // DF, offset 0
  frame[21] = 0x00;
  frame[23] = protocol;
  return frame;
}

std::vector<std::uint8_t> ipv6_frame(std::mt19937& random, std::uint8_t next_header,
                                     std::size_t size) {
  std::vector<std::uint8_t> frame(size);
  for (auto& byte : frame)
    byte = static_cast<std::uint8_t>(random());
  frame[12] = 0x86;
  frame[13] = 0xdd;
  frame[14] = 0x60;
  const std::size_t payload = size - 54;
  frame[18] = static_cast<std::uint8_t>(payload >> 8);
  frame[19] = static_cast<std::uint8_t>(payload);
  frame[20] = next_header;
  return frame;
}

// Every frame the fast paths accept must hash exactly as the full parser + l34 policy does, and
// the four-lane path must accept exactly what the scalar path accepts (IPv4 and IPv6), in any
// lane.
void expect_same_as_parser(const FlowHasher& l34, ByteSpan frame, std::size_t& taken) {
  const std::uint32_t parsed = l34.hash_frame(frame);
  std::uint32_t fast = 0;
  const bool accepted = try_hash_l34(frame, fast);
  for (unsigned lane = 0; lane < kL34Lanes; ++lane) {
    std::array<ByteSpan, kL34Lanes> frames{};
    frames[lane] = frame;
    std::array<std::uint32_t, kL34Lanes> hashes{};
    const unsigned mask = try_hash_l34_x4(frames, hashes.data());
    ASSERT_EQ(mask, accepted ? 1u << lane : 0u) << "lane " << lane << ", frame of " << frame.size();
    if (accepted) {
      ASSERT_EQ(hashes[lane], parsed) << "lane " << lane;
    }
  }
  if (!accepted) return;
  ++taken;
  ASSERT_EQ(fast, parsed) << "frame of " << frame.size() << " bytes";
}

TEST(L34FastPath, AgreesWithTheParserOnEveryTruncationAndCorruption) {
  const FlowHasher l34(HashPolicy::l34);
  std::mt19937 random(7);
  std::size_t taken = 0;
  for (int round = 0; round < 400; ++round) {
    const std::uint8_t protocol = round % 3 == 0 ? 17 : round % 3 == 1 ? 6 : 1;
    std::vector<std::uint8_t> frame = round % 2 == 0
                                          ? ipv4_frame(random, protocol, 60 + random() % 100)
                                          : ipv6_frame(random, protocol, 70 + random() % 100);
    if (round % 7 == 0) {  // RoCEv2: the QP is hashed instead of ports, IPv4 and IPv6
      const bool v6 = frame[12] == 0x86;
      frame[v6 ? 20 : 23] = 17;
      frame[v6 ? 56 : 36] = 0x12;
      frame[v6 ? 57 : 37] = 0xb7;
    }
    if (frame[12] == 0x86 && round % 5 == 1) {  // a jumbogram: payload length 0 (RFC 2675)
      frame[18] = 0;
      frame[19] = 0;
    }
    if (frame[12] == 0x86 && round % 5 == 3) {  // Ethernet padding after a short datagram
      frame[18] = 0;
      frame[19] = static_cast<std::uint8_t>(8 + random() % 16);
    }
    for (std::size_t length = 0; length <= frame.size(); ++length) {
      expect_same_as_parser(l34, ByteSpan(frame.data(), length), taken);
    }
    for (int flip = 0; flip < 40; ++flip) {
      std::vector<std::uint8_t> corrupted = frame;
      corrupted[12 + random() % (corrupted.size() - 12)] ^=
          static_cast<std::uint8_t>(1u << (random() % 8));
      expect_same_as_parser(l34, corrupted, taken);
    }
  }
  EXPECT_GT(taken, 10000u);  // the fast path is really exercised
}

TEST(L34FastPath, DeclinesWhatItDoesNotHandle) {
  std::mt19937 random(1);
  const std::vector<std::uint8_t> tcp_frame = ipv4_frame(random, 6, 64);
  const std::vector<std::uint8_t> udp_frame = ipv4_frame(random, 17, 64);
  std::array<std::uint8_t, 64> tcp{};
  std::array<std::uint8_t, 64> udp{};
  std::copy(tcp_frame.begin(), tcp_frame.end(), tcp.begin());
  std::copy(udp_frame.begin(), udp_frame.end(), udp.begin());
  std::uint32_t hash = 0;
  EXPECT_TRUE(try_hash_l34_ipv4(tcp, hash));
  auto declined = [&](std::array<std::uint8_t, 64> frame, std::size_t at, std::uint8_t value) {
    frame[at] = value;
    return !try_hash_l34_ipv4(frame, hash);
  };
  EXPECT_TRUE(declined(tcp, 20, 0x20));  // more fragments
  EXPECT_TRUE(declined(tcp, 14, 0x46));  // IHL 6: options
  EXPECT_TRUE(declined(tcp, 12, 0x81));  // 802.1Q tag
  std::array<std::uint8_t, 64> roce = udp;
  roce[36] = 0x12;
  EXPECT_TRUE(declined(roce, 37, 0xb7));  // UDP port 4791: not the plain IPv4 path's
}

// A RoCEv2 frame whose UDP header starts at `l4`: hashed by its BTH's destination QP (bytes
// l4 + 13..15), not by its ports, the same in the fast path and the parser.
void expect_hashed_by_queue_pair(std::vector<std::uint8_t> frame, std::size_t l4) {
  frame[l4 + 2] = 0x12;  // UDP destination port 4791
  frame[l4 + 3] = 0xb7;
  const FlowHasher l34(HashPolicy::l34);
  std::uint32_t first = 0;
  ASSERT_TRUE(try_hash_l34(frame, first));
  EXPECT_EQ(first, l34.hash_frame(frame));
  frame[l4] ^= 0x40;  // another UDP source port: the same QP, the same flow
  std::uint32_t second = 0;
  ASSERT_TRUE(try_hash_l34(frame, second));
  EXPECT_EQ(first, second);
  frame[l4 + 15] ^= 0x01;  // another destination QP
  ASSERT_TRUE(try_hash_l34(frame, second));
  EXPECT_NE(first, second);
  EXPECT_EQ(second, l34.hash_frame(frame));
  // The BTH cut short: the parser's job (it hashes the ports, the key has no QP).
  EXPECT_FALSE(try_hash_l34(ByteSpan(frame.data(), l4 + 8 + 11), second));
}

TEST(L34FastPath, HashesRocev2ByItsQueuePair) {
  std::mt19937 random(3);
  expect_hashed_by_queue_pair(ipv4_frame(random, 17, 64), 34);
  expect_hashed_by_queue_pair(ipv6_frame(random, 17, 80), 54);
}

// Every byte of both IPv6 addresses and of the ports is hashed, and each in its own position.
TEST(L34FastPath, Ipv6HashReadsEveryAddressByteInItsPlace) {
  std::mt19937 random(13);
  const std::vector<std::uint8_t> frame = ipv6_frame(random, 6, 80);
  std::uint32_t original = 0;
  ASSERT_TRUE(try_hash_l34(frame, original));
  for (std::size_t at = 22; at < 58; ++at) {
    std::vector<std::uint8_t> changed = frame;
    changed[at] ^= 0x01;
    std::uint32_t hash = 0;
    ASSERT_TRUE(try_hash_l34(changed, hash));
    EXPECT_NE(hash, original) << "byte " << at;
  }
  std::vector<std::uint8_t> swapped = frame;  // source and destination exchanged
  std::swap_ranges(swapped.begin() + 22, swapped.begin() + 38, swapped.begin() + 38);
  std::uint32_t hash = 0;
  ASSERT_TRUE(try_hash_l34(swapped, hash));
  EXPECT_NE(hash, original);
}

TEST(L34FastPath, FourLanesHashMixedFramesLikeOneAtATime) {
  std::mt19937 random(11);
  const FlowHasher l34(HashPolicy::l34);
  std::size_t ipv6_taken = 0;
  for (int round = 0; round < 4000; ++round) {
    std::array<std::vector<std::uint8_t>, kL34Lanes> frames;
    std::array<ByteSpan, kL34Lanes> spans;
    for (unsigned lane = 0; lane < kL34Lanes; ++lane) {
      const unsigned kind = random() % 6;
      const bool ipv6 = kind >= 3;
      const std::uint8_t protocol = kind % 3 == 0 ? 6 : 17;
      frames[lane] = ipv6 ? ipv6_frame(random, protocol, 62 + random() % 40)
                          : ipv4_frame(random, protocol, 42 + random() % 40);
      if (kind % 3 == 2) {  // RoCEv2
        frames[lane][ipv6 ? 56 : 36] = 0x12;
        frames[lane][ipv6 ? 57 : 37] = 0xb7;
      }
      spans[lane] = ByteSpan(frames[lane].data(), frames[lane].size() - random() % 3);
    }
    std::array<std::uint32_t, kL34Lanes> hashes{};
    const unsigned mask = try_hash_l34_x4(spans, hashes.data());
    for (unsigned lane = 0; lane < kL34Lanes; ++lane) {
      std::uint32_t scalar = 0;
      const bool accepted = try_hash_l34(spans[lane], scalar);
      ASSERT_EQ((mask >> lane & 1) != 0, accepted) << "round " << round << " lane " << lane;
      if (accepted) {
        ASSERT_EQ(hashes[lane], scalar);
        ASSERT_EQ(hashes[lane], l34.hash_frame(spans[lane]));
        ipv6_taken += spans[lane][12] == 0x86 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(ipv6_taken, 4000u);  // IPv6 lanes are really hashed in the four-lane pass
}

}  // namespace
}  // namespace braid::flow
