// The l34 fast paths on VLAN-tagged frames (vlan_tags.hpp): one or two tags of every TPID the
// parser knows are taken without the parser and hash exactly as the parser + l34 policy does;
// whatever the parser stops on (a third tag, a cut tag) is declined. Random frames, every
// truncation and random corruptions, tags included.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "flow/flow_hash.hpp"
#include "flow/l34_fast_path.hpp"
#include "flow/l34_fast_path_x4.hpp"
#include "flow/vlan_tags.hpp"

namespace braid::flow {
namespace {

constexpr std::array<std::uint16_t, 3> kTpids = {kEtherTypeVlan, kEtherTypeQinQ,
                                                 kEtherTypeQinQLegacy};

// A well-formed untagged IPv4 or IPv6 frame over random bytes: TCP, UDP or RoCEv2 (UDP 4791).
std::vector<std::uint8_t> untagged_frame(std::mt19937& random, bool ipv6, std::uint8_t protocol,
                                         bool rocev2, std::size_t size) {
  std::vector<std::uint8_t> frame(size);
  for (auto& byte : frame)
    byte = static_cast<std::uint8_t>(random());
  const std::size_t l4 = ipv6 ? 54 : 34;
  frame[12] = ipv6 ? 0x86 : 0x08;
  frame[13] = ipv6 ? 0xdd : 0x00;
  if (ipv6) {
    frame[14] = 0x60;
    frame[18] = static_cast<std::uint8_t>((size - l4) >> 8);
    frame[19] = static_cast<std::uint8_t>(size - l4);
    frame[20] = protocol;
  } else {
    frame[14] = 0x45;
    frame[16] = static_cast<std::uint8_t>((size - 14) >> 8);
    frame[17] = static_cast<std::uint8_t>(size - 14);
    frame[20] = 0x40;  // DF, offset 0
    frame[21] = 0x00;
    frame[23] = protocol;
  }
  if (rocev2) {
    frame[l4 + 2] = 0x12;  // UDP destination port 4791
    frame[l4 + 3] = 0xb7;
  }
  return frame;
}

// `frame` with `tags` tags of `tpid` inserted after the MAC addresses.
std::vector<std::uint8_t> tagged(std::vector<std::uint8_t> frame, std::uint16_t tpid, int tags,
                                 std::mt19937& random) {
  for (int tag = 0; tag < tags; ++tag) {
    const std::array<std::uint8_t, 4> bytes = {
        static_cast<std::uint8_t>(tpid >> 8), static_cast<std::uint8_t>(tpid),
        static_cast<std::uint8_t>(random()), static_cast<std::uint8_t>(random())};
    frame.insert(frame.begin() + 12, bytes.begin(), bytes.end());
  }
  return frame;
}

// Both fast paths against the parser: a frame the scalar path takes hashes as the parser says,
// and the four-lane path takes in any lane what the scalar path takes, with its hash.
// Returns whether the scalar fast path took the frame.
bool agrees_with_parser(const FlowHasher& l34, ByteSpan frame) {
  const std::uint32_t parsed = l34.hash_frame(frame);
  std::uint32_t fast = 0;
  const bool accepted = try_hash_l34(frame, fast);
  for (unsigned lane = 0; lane < kL34Lanes; ++lane) {
    std::array<ByteSpan, kL34Lanes> frames{};
    frames[lane] = frame;
    std::array<std::uint32_t, kL34Lanes> hashes{};
    const unsigned mask = try_hash_l34_x4(frames, hashes.data());
    EXPECT_EQ(mask, accepted ? 1u << lane : 0u) << "lane " << lane << ", frame of " << frame.size();
    if (accepted) {
      EXPECT_EQ(hashes[lane], parsed) << "lane " << lane;
    }
  }
  if (!accepted) return false;
  EXPECT_EQ(fast, parsed) << "frame of " << frame.size() << " bytes";
  return true;
}

TEST(TaggedFastPath, TakesOneAndTwoTagsOfEveryTpidAndHashesAsTheUntaggedFrame) {
  const FlowHasher l34(HashPolicy::l34);
  std::mt19937 random(19);
  for (int round = 0; round < 300; ++round) {
    const bool ipv6 = round % 2 == 1;
    const std::uint8_t protocol = round % 3 == 0 ? 6 : 17;
    const bool rocev2 = protocol == 17 && round % 5 == 0;
    const auto plain =
        untagged_frame(random, ipv6, protocol, rocev2, (ipv6 ? 80 : 64) + random() % 80);
    std::uint32_t untagged_hash = 0;
    ASSERT_TRUE(try_hash_l34(plain, untagged_hash));
    for (std::uint16_t tpid : kTpids) {
      for (int tags = 1; tags <= kMaxVlanTags; ++tags) {
        const auto frame = tagged(plain, tpid, tags, random);
        std::uint32_t hash = 0;
        ASSERT_TRUE(try_hash_l34(frame, hash)) << tags << " tags of " << tpid;
        EXPECT_EQ(hash, untagged_hash);
        EXPECT_EQ(hash, l34.hash_frame(frame));
        EXPECT_TRUE(agrees_with_parser(l34, frame));
      }
      // A third tag: the parser stops (vlan_depth_exceeded, an L2 key), the fast paths decline.
      const auto three = tagged(plain, tpid, 3, random);
      EXPECT_FALSE(agrees_with_parser(l34, three));
    }
  }
}

TEST(TaggedFastPath, AgreesWithTheParserOnEveryTruncationAndCorruption) {
  const FlowHasher l34(HashPolicy::l34);
  std::mt19937 random(23);
  std::size_t taken = 0;
  std::size_t frames = 0;
  for (int round = 0; round < 240; ++round) {
    const bool ipv6 = round % 2 == 1;
    const std::uint8_t protocol = round % 3 == 0 ? 6 : round % 3 == 1 ? 17 : 1;
    const auto plain = untagged_frame(random, ipv6, protocol, round % 7 == 0, 60 + random() % 90);
    const auto frame = tagged(plain, kTpids[round % kTpids.size()], 1 + round % 3, random);
    for (std::size_t length = 0; length <= frame.size(); ++length, ++frames)
      taken += agrees_with_parser(l34, ByteSpan(frame.data(), length)) ? 1 : 0;
    for (int flip = 0; flip < 60; ++flip, ++frames) {
      std::vector<std::uint8_t> corrupted = frame;
      // Mostly in the tags and the headers right after them.
      const std::size_t at = 12 + random() % (flip % 2 == 0 ? 24 : corrupted.size() - 12);
      corrupted[at] ^= static_cast<std::uint8_t>(1u << (random() % 8));
      taken += agrees_with_parser(l34, corrupted) ? 1 : 0;
    }
    ASSERT_FALSE(testing::Test::HasFailure()) << "round " << round;
  }
  EXPECT_GT(taken, frames / 10);  // the tagged fast path is really exercised
}

TEST(TaggedFastPath, FourLanesMixTaggedUntaggedAndIpv6) {
  const FlowHasher l34(HashPolicy::l34);
  std::mt19937 random(29);
  for (int round = 0; round < 3000; ++round) {
    std::array<std::vector<std::uint8_t>, kL34Lanes> frames;
    std::array<ByteSpan, kL34Lanes> spans;
    for (unsigned lane = 0; lane < kL34Lanes; ++lane) {
      const unsigned kind = random() % 4;
      const bool ipv6 = kind == 3 || random() % 4 == 0;
      frames[lane] =
          tagged(untagged_frame(random, ipv6, random() % 2 ? 6 : 17, kind == 2,
                                (ipv6 ? 62 : 42) + random() % 40),
                 kTpids[random() % kTpids.size()], static_cast<int>(random() % 4), random);
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
      }
    }
  }
}

TEST(TaggedFastPath, SkipsOnlyWholeTags) {
  std::mt19937 random(31);
  const auto plain = untagged_frame(random, false, 6, false, 64);
  EXPECT_EQ(skip_vlan_tags(plain).size(), plain.size());
  const auto one = tagged(plain, kEtherTypeVlan, 1, random);
  EXPECT_EQ(skip_vlan_tags(one).size(), plain.size());
  const auto two = tagged(plain, kEtherTypeQinQ, 2, random);
  EXPECT_EQ(skip_vlan_tags(two).size(), plain.size());
  EXPECT_EQ(skip_vlan_tags(tagged(plain, kEtherTypeVlan, 3, random)).size(), plain.size() + 4);
  // A tag cut short is left in place, as the parser leaves it (truncated_l2).
  EXPECT_EQ(skip_vlan_tags(ByteSpan(one.data(), 17)).size(), 17u);
  EXPECT_EQ(skip_vlan_tags(ByteSpan(two.data(), 21)).size(), 17u);
}

}  // namespace
}  // namespace braid::flow
