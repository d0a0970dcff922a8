#include "ecn/ce_mark.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ecn_frames.hpp"

namespace braid::ecn {
namespace {

using test::ipv4_checksum_verifies;
using test::ipv4_frame;
using test::ipv6_frame;
using test::recompute_ipv4_checksum;

constexpr std::uint8_t kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3;
constexpr std::uint8_t kDscpAf41 = 34 << 2;
constexpr std::size_t kL3 = 14;
constexpr std::uint16_t kCTag = 0x8100, kSTag = 0x88A8, kOldSTag = 0x9100;

MarkResult mark(std::vector<std::uint8_t>& frame) {
  return mark_ce(frame);
}

std::uint8_t ipv6_traffic_class(const std::vector<std::uint8_t>& frame, std::size_t l3) {
  return static_cast<std::uint8_t>((frame[l3] & 0x0F) << 4 | frame[l3 + 1] >> 4);
}

TEST(MarkCe, Ipv4EctBecomesCeWithTheChecksumFixed) {
  for (std::uint8_t ect : {kEct0, kEct1}) {
    std::vector<std::uint8_t> frame = ipv4_frame(kDscpAf41 | ect);
    const std::vector<std::uint8_t> before = frame;
    EXPECT_EQ(mark(frame), MarkResult::marked);
    EXPECT_EQ(frame[kL3 + 1], kDscpAf41 | kCe);
    EXPECT_EQ(load_be16(frame, kL3 + 10), recompute_ipv4_checksum(frame, kL3));
    EXPECT_TRUE(ipv4_checksum_verifies(frame, kL3));
    for (std::size_t i = 0; i < frame.size(); ++i) {
      if (i != kL3 + 1 && i != kL3 + 10 && i != kL3 + 11) {
        EXPECT_EQ(frame[i], before[i]) << i;
      }
    }
  }
}

TEST(MarkCe, CeStaysCeAndNotEctIsNeverTouched) {
  for (const std::vector<std::uint16_t>& tags :
       {std::vector<std::uint16_t>{}, {kCTag}, {kSTag, kCTag}}) {
    for (std::uint8_t dscp = 0; dscp < 64; ++dscp) {
      std::vector<std::uint8_t> v4 =
          ipv4_frame(static_cast<std::uint8_t>(dscp << 2 | kNotEct), tags);
      std::vector<std::uint8_t> v6 =
          ipv6_frame(static_cast<std::uint8_t>(dscp << 2 | kNotEct), tags);
      std::vector<std::uint8_t> ce4 = ipv4_frame(static_cast<std::uint8_t>(dscp << 2 | kCe), tags);
      std::vector<std::uint8_t> ce6 = ipv6_frame(static_cast<std::uint8_t>(dscp << 2 | kCe), tags);
      const auto v4_before = v4, v6_before = v6, ce4_before = ce4, ce6_before = ce6;
      EXPECT_EQ(mark(v4), MarkResult::not_ect);
      EXPECT_EQ(mark(v6), MarkResult::not_ect);
      EXPECT_EQ(mark(ce4), MarkResult::already_ce);
      EXPECT_EQ(mark(ce6), MarkResult::already_ce);
      EXPECT_EQ(v4, v4_before);
      EXPECT_EQ(v6, v6_before);
      EXPECT_EQ(ce4, ce4_before);
      EXPECT_EQ(ce6, ce6_before);
    }
  }
}

TEST(MarkCe, Ipv6SetsOnlyTheTrafficClassEcnBits) {
  for (unsigned tc = 0; tc < 256; ++tc) {
    std::vector<std::uint8_t> frame = ipv6_frame(static_cast<std::uint8_t>(tc));
    const std::vector<std::uint8_t> before = frame;
    const std::uint8_t ecn = tc & 3;
    const MarkResult result = mark(frame);
    EXPECT_EQ(result, ecn == kNotEct ? MarkResult::not_ect
                      : ecn == kCe   ? MarkResult::already_ce
                                     : MarkResult::marked)
        << tc;
    EXPECT_EQ(ipv6_traffic_class(frame, kL3), ecn == kNotEct ? tc : (tc | kCe)) << tc;
    EXPECT_EQ(frame[kL3] >> 4, 6);
    EXPECT_EQ(frame[kL3 + 1] & 0x0F, before[kL3 + 1] & 0x0F);  // flow label's top bits
    for (std::size_t i = 0; i < frame.size(); ++i) {
      if (i != kL3 + 1) {
        EXPECT_EQ(frame[i], before[i]) << tc << " " << i;
      }
    }
  }
}

TEST(MarkCe, TaggedFramesAreMarkedPastTheirTags) {
  for (const std::vector<std::uint16_t>& tags : {std::vector<std::uint16_t>{kCTag},
                                                 {kSTag},
                                                 {kOldSTag},
                                                 {kSTag, kCTag},
                                                 {kOldSTag, kCTag},
                                                 {kCTag, kCTag}}) {
    const std::size_t l3 = kL3 + 4 * tags.size();
    std::vector<std::uint8_t> v4 = ipv4_frame(kEct0, tags);
    std::vector<std::uint8_t> v6 = ipv6_frame(kEct1, tags);
    EXPECT_EQ(mark(v4), MarkResult::marked);
    EXPECT_EQ(v4[l3 + 1], kCe);
    EXPECT_TRUE(ipv4_checksum_verifies(v4, l3));
    EXPECT_EQ(mark(v6), MarkResult::marked);
    EXPECT_EQ(ipv6_traffic_class(v6, l3), kCe);
  }
}

TEST(MarkCe, AThirdTagIsNotIp) {
  std::vector<std::uint8_t> frame = ipv4_frame(kEct0, {kSTag, kCTag, kCTag});
  const std::vector<std::uint8_t> before = frame;
  EXPECT_EQ(mark(frame), MarkResult::not_ip);
  EXPECT_EQ(frame, before);
}

TEST(MarkCe, OtherEtherTypesAndBadVersionsAreNotIp) {
  std::vector<std::uint8_t> arp = ipv4_frame(kEct0);
  store_be16(arp, 12, 0x0806);
  std::vector<std::uint8_t> v4_says_6 = ipv4_frame(kEct0);
  v4_says_6[kL3] = 0x65;
  std::vector<std::uint8_t> ihl_4 = ipv4_frame(kEct0);
  ihl_4[kL3] = 0x44;
  std::vector<std::uint8_t> v6_says_4 = ipv6_frame(kEct0);
  v6_says_4[kL3] = 0x40;
  for (std::vector<std::uint8_t>* frame : {&arp, &v4_says_6, &ihl_4, &v6_says_4}) {
    const std::vector<std::uint8_t> before = *frame;
    EXPECT_EQ(mark(*frame), MarkResult::not_ip);
    EXPECT_EQ(*frame, before);
  }
}

TEST(MarkCe, OnlyTheOuterHeaderOfATunnelIsMarked) {
  using flow::test::FrameBuilder;
  // VXLAN: outer IPv4 ECT(0), inner IPv4 ECT(0).
  std::vector<std::uint8_t> frame = FrameBuilder()
                                        .ethernet(test::kDst, test::kSrc)
                                        .ipv4(test::kSrc4, test::kDst4)
                                        .traffic_class(kEct0)
                                        .udp(49152, 4789)
                                        .vxlan(42)
                                        .ethernet(test::kDst, test::kSrc)
                                        .ipv4(test::kDst4, test::kSrc4)
                                        .traffic_class(kEct0)
                                        .udp(4791, 4791)
                                        .payload(16)
                                        .build();
  const std::size_t inner_l3 = kL3 + 20 + 8 + 8 + 14;
  test::fix_ipv4_checksum(frame, kL3);
  test::fix_ipv4_checksum(frame, inner_l3);
  const std::vector<std::uint8_t> inner_before(frame.begin() + inner_l3, frame.end());
  EXPECT_EQ(mark(frame), MarkResult::marked);
  EXPECT_EQ(frame[kL3 + 1], kCe);
  EXPECT_TRUE(ipv4_checksum_verifies(frame, kL3));
  EXPECT_EQ(std::vector<std::uint8_t>(frame.begin() + inner_l3, frame.end()), inner_before);

  // An outer Not-ECT header asked not to be marked, whatever it carries.
  frame[kL3 + 1] = kNotEct;
  test::fix_ipv4_checksum(frame, kL3);
  const std::vector<std::uint8_t> before = frame;
  EXPECT_EQ(mark(frame), MarkResult::not_ect);
  EXPECT_EQ(frame, before);
}

// Random IPv4 headers (any IHL and options, any field values, a correct checksum): after marking,
// the incrementally updated checksum is what a full recompute gives.
TEST(MarkCe, TheIncrementalChecksumIsAFullRecomputeForRandomHeaders) {
  std::mt19937 random(2024);
  int marked = 0;
  for (int i = 0; i < 20'000; ++i) {
    const std::size_t option_bytes = 4 * (random() % 11);
    std::vector<std::uint8_t> options(option_bytes);
    for (std::uint8_t& byte : options)
      byte = static_cast<std::uint8_t>(random());
    std::vector<std::uint8_t> frame =
        ipv4_frame(static_cast<std::uint8_t>(random()), {}, options, random() % 64);
    for (std::size_t offset : {2, 4, 6, 8, 9})  // length, id, fragment, TTL, protocol
      frame[kL3 + offset] = static_cast<std::uint8_t>(random());
    for (std::size_t offset = 12; offset < 20; ++offset)  // addresses
      frame[kL3 + offset] = static_cast<std::uint8_t>(random());
    test::fix_ipv4_checksum(frame, kL3);
    const std::uint8_t ecn = frame[kL3 + 1] & 3;
    const MarkResult result = mark(frame);
    if (ecn == kEct0 || ecn == kEct1) {
      ASSERT_EQ(result, MarkResult::marked);
      ++marked;
    }
    ASSERT_EQ(load_be16(frame, kL3 + 10), recompute_ipv4_checksum(frame, kL3)) << i;
    ASSERT_TRUE(ipv4_checksum_verifies(frame, kL3)) << i;
  }
  EXPECT_GT(marked, 9000);  // about half of them
}

// Sets the identification field so that the header's sum without its checksum is 0xFFFF, whose
// checksum a full recompute makes 0x0000 (never 0xFFFF: RFC 1624 section 3).
void force_zero_checksum(std::vector<std::uint8_t>& frame) {
  store_be16(frame, kL3 + 4, 0);
  const std::uint16_t others = static_cast<std::uint16_t>(~recompute_ipv4_checksum(frame, kL3));
  store_be16(frame, kL3 + 4, static_cast<std::uint16_t>(0xFFFF - others));
  test::fix_ipv4_checksum(frame, kL3);
  ASSERT_EQ(load_be16(frame, kL3 + 10), 0x0000);
}

TEST(MarkCe, AChecksumThatBecomesZeroIsZeroNotFfff) {
  for (std::uint8_t ect : {kEct0, kEct1}) {
    std::vector<std::uint8_t> frame = ipv4_frame(kCe);
    force_zero_checksum(frame);  // as CE, the checksum is 0x0000
    frame[kL3 + 1] = ect;
    test::fix_ipv4_checksum(frame, kL3);
    ASSERT_NE(load_be16(frame, kL3 + 10), 0x0000);
    EXPECT_EQ(mark(frame), MarkResult::marked);
    EXPECT_EQ(load_be16(frame, kL3 + 10), 0x0000);
    EXPECT_TRUE(ipv4_checksum_verifies(frame, kL3));
  }
}

TEST(MarkCe, AZeroChecksumIsUpdatedLikeAnyOther) {
  std::vector<std::uint8_t> frame = ipv4_frame(kEct0);
  force_zero_checksum(frame);
  EXPECT_EQ(mark(frame), MarkResult::marked);
  EXPECT_EQ(load_be16(frame, kL3 + 10), recompute_ipv4_checksum(frame, kL3));
  EXPECT_TRUE(ipv4_checksum_verifies(frame, kL3));
}

TEST(MarkCe, AnFfffChecksumThatVerifiedStillVerifies) {
  // 0xFFFF is one's-complement zero: a sender may write it where a recompute gives 0x0000.
  std::vector<std::uint8_t> frame = ipv4_frame(kEct0);
  force_zero_checksum(frame);
  store_be16(frame, kL3 + 10, 0xFFFF);
  ASSERT_TRUE(ipv4_checksum_verifies(frame, kL3));
  EXPECT_EQ(mark(frame), MarkResult::marked);
  EXPECT_TRUE(ipv4_checksum_verifies(frame, kL3));
}

TEST(MarkCe, AWrongChecksumStaysWrong) {
  std::vector<std::uint8_t> frame = ipv4_frame(kEct0);
  store_be16(frame, kL3 + 10, static_cast<std::uint16_t>(load_be16(frame, kL3 + 10) ^ 0x0100));
  ASSERT_FALSE(ipv4_checksum_verifies(frame, kL3));
  EXPECT_EQ(mark(frame), MarkResult::marked);
  EXPECT_FALSE(ipv4_checksum_verifies(frame, kL3));
}

// Every prefix of a frame, copied into a buffer of exactly its size (ASan sees a read past it):
// short of the whole L2 + IP header it is truncated and untouched, from there on it is marked.
TEST(MarkCe, EveryTruncationStopsAtTheEnd) {
  struct Case {
    std::vector<std::uint8_t> frame;
    std::size_t header_end;  // L2 + the IP header
  };
  const std::vector<std::uint8_t> options(12, 0x01);  // NOPs: IHL 8
  const Case cases[] = {
      {ipv4_frame(kEct0), kL3 + 20},
      {ipv4_frame(kEct0, {}, options), kL3 + 32},
      {ipv4_frame(kEct1, {kSTag, kCTag}), kL3 + 8 + 20},
      {ipv6_frame(kEct0), kL3 + 40},
      {ipv6_frame(kEct1, {kCTag}), kL3 + 4 + 40},
      {ipv6_frame(kEct0, {kOldSTag, kCTag}), kL3 + 8 + 40},
  };
  for (const Case& c : cases) {
    for (std::size_t size = 0; size <= c.frame.size(); ++size) {
      std::vector<std::uint8_t> prefix(c.frame.begin(), c.frame.begin() + static_cast<long>(size));
      const std::vector<std::uint8_t> before = prefix;
      const MarkResult result = mark_ce(MutableByteSpan(prefix.data(), prefix.size()));
      if (size < c.header_end) {
        EXPECT_EQ(result, MarkResult::truncated) << size;
        EXPECT_EQ(prefix, before) << size;
      } else {
        EXPECT_EQ(result, MarkResult::marked) << size;
      }
    }
  }
}

TEST(MarkCe, ResultsHaveNames) {
  EXPECT_STREQ(to_string(MarkResult::marked), "marked");
  EXPECT_STREQ(to_string(MarkResult::already_ce), "already_ce");
  EXPECT_STREQ(to_string(MarkResult::not_ect), "not_ect");
  EXPECT_STREQ(to_string(MarkResult::not_ip), "not_ip");
  EXPECT_STREQ(to_string(MarkResult::truncated), "truncated");
}

}  // namespace
}  // namespace braid::ecn
