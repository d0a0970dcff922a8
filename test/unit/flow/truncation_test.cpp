// Every prefix of a few realistic frames parses without reading past its end (each prefix is
// copied into an exactly-sized heap buffer, so the ASan build turns an over-read into a failure),
// and a prefix never claims a layer the whole frame does not have.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "flow/flow_hash.hpp"
#include "flow/parser.hpp"
#include "frame_builder.hpp"

namespace braid::flow {
namespace {

using test::FrameBuilder;

// An iSCSI login SYN as a Linux initiator sends it: IPv4 (DF), TCP with MSS, SACK-permitted,
// timestamps and window scale options.
constexpr std::uint8_t kIscsiSyn[] = {
    0x00, 0x1b, 0x21, 0x3a, 0x4f, 0x10, 0x3c, 0xfd, 0xfe, 0xa5, 0x12, 0x34, 0x08, 0x00,  // eth
    0x45, 0x00, 0x00, 0x3c, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06, 0xb1, 0xe6, 0xc0, 0xa8,
    0x01, 0x64, 0xc0, 0xa8, 0x01, 0x01,  // IPv4 192.168.1.100 -> 192.168.1.1
    0xd4, 0x31, 0x0c, 0xbc, 0x6a, 0x1f, 0x3e, 0x01, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x02,
    0x72, 0x10, 0x83, 0x9c, 0x00, 0x00,  // TCP 54321 -> 3260, SYN
    0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0x00, 0x9d, 0x2b, 0x6e, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x03, 0x03, 0x07,  // MSS 1460, SACK perm, TS, NOP, WS 7
};

std::vector<std::vector<std::uint8_t>> sample_frames() {
  using namespace test;
  std::vector<std::vector<std::uint8_t>> frames;
  frames.emplace_back(std::begin(kIscsiSyn), std::end(kIscsiSyn));
  frames.push_back(FrameBuilder()
                       .ethernet(kMacB, kMacA)
                       .vlan(kEtherTypeQinQ, 10)
                       .vlan(kEtherTypeVlan, 20)
                       .ipv4(kIpv4A, kIpv4B)
                       .udp(49152, kUdpPortRocev2)
                       .bth(0x1234)
                       .payload(8)
                       .build());
  frames.push_back(FrameBuilder()
                       .ethernet(kMacB, kMacA)
                       .ipv6(kIpv6A, kIpv6B)
                       .ipv6_extension(kIpProtoHopByHop)
                       .ipv6_extension(kIpProtoRouting, 1)
                       .ipv6_fragment(0, false, 3)
                       .sctp(1, 2)
                       .build());
  frames.push_back(FrameBuilder()
                       .ethernet(kMacB, kMacA)
                       .ipv4(kIpv4A, kIpv4B)
                       .udp(50000, kUdpPortVxlan)
                       .vxlan(77)
                       .ethernet(kMacA, kMacB)
                       .vlan(kEtherTypeVlan, 3)
                       .ipv6(kIpv6A, kIpv6B)
                       .tcp(10, 20)
                       .build());
  frames.push_back(FrameBuilder()
                       .ethernet(kMacB, kMacA)
                       .ipv6(kIpv6A, kIpv6B)
                       .gre(true, 5, true, true)
                       .ethertype(kEtherTypeTeb)
                       .ethernet(kMacA, kMacB)
                       .ipv4(kIpv4B, kIpv4A)
                       .icmp(8, 0)
                       .build());
  return frames;
}

TEST(FlowParserTruncation, EveryPrefixIsSafeAndASubset) {
  std::vector<FlowHasher> hashers;
  for (HashPolicy policy : kAllHashPolicies)
    hashers.emplace_back(policy);
  for (const auto& frame : sample_frames()) {
    const FlowKey whole = parse_flow_key(ByteSpan(frame));
    ASSERT_EQ(whole.status, ParseStatus::ok);
    for (std::size_t length = 0; length <= frame.size(); ++length) {
      SCOPED_TRACE("prefix of " + std::to_string(length) + " / " + std::to_string(frame.size()));
      // Exactly `length` bytes on the heap: ASan reports any read past them.
      auto prefix = std::make_unique<std::uint8_t[]>(length == 0 ? 1 : length);
      std::copy(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(length), prefix.get());
      const ByteSpan bytes(prefix.get(), length);
      const FlowKey key = parse_flow_key(bytes);
      EXPECT_EQ(key.layers & ~whole.layers, 0) << to_string(key.status);
      if (length < frame.size() && key.layers != whole.layers) {
        EXPECT_TRUE(is_error(key.status)) << to_string(key.status);
      }
      for (const FlowHasher& hasher : hashers)
        (void)hasher.hash_frame(bytes);
    }
  }
}

TEST(FlowParserTruncation, EmptyFrame) {
  const FlowKey key = parse_flow_key(ByteSpan());
  EXPECT_EQ(key.status, ParseStatus::truncated_l2);
  EXPECT_EQ(key.layers, 0);
}

}  // namespace
}  // namespace braid::flow
