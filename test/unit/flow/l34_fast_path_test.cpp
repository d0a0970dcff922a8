#include "flow/l34_fast_path.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "flow/flow_hash.hpp"

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

// Every frame the fast path accepts must hash exactly as the full parser + l34 policy does.
void expect_same_as_parser(const FlowHasher& l34, ByteSpan frame, std::size_t& taken) {
  std::uint32_t fast = 0;
  if (!try_hash_l34(frame, fast)) return;
  ++taken;
  ASSERT_EQ(fast, l34.hash_frame(frame)) << "frame of " << frame.size() << " bytes";
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
    if (round % 7 == 0) {  // RoCEv2: must be declined (the QP is hashed instead of ports)
      const bool v6 = frame[12] == 0x86;
      frame[v6 ? 20 : 23] = 17;
      frame[v6 ? 56 : 36] = 0x12;
      frame[v6 ? 57 : 37] = 0xb7;
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
  EXPECT_TRUE(declined(roce, 37, 0xb7));  // UDP port 4791
}

}  // namespace
}  // namespace braid::flow
