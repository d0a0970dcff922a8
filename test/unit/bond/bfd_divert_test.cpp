// What the workers divert as BFD (bfd_divert.hpp): micro-BFD to the group MAC or the member's,
// single-hop to the member's, IPv4 and IPv6, one VLAN tag; never a data frame, and nothing
// while BFD is off. The policer keeps the peer's packets apart from a flood.
#include "bond/bfd_divert.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace braid::bond {
namespace {

constexpr std::uint64_t kMemberMac = 0x02620000aa01;
constexpr BfdDivertRule kMicro{6784, true};
constexpr BfdDivertRule kSingleHop{3784, false};

// Ethernet (optionally tagged), IPv4 or IPv6, UDP to `port`, 24 bytes of payload.
std::vector<std::uint8_t> frame(std::uint64_t destination, std::uint16_t port, bool ipv6 = false,
                                bool tagged = false, std::uint8_t protocol = 17) {
  std::vector<std::uint8_t> f;
  for (int i = 5; i >= 0; --i)
    f.push_back(static_cast<std::uint8_t>(destination >> (8 * i)));
  for (int i = 0; i < 6; ++i)
    f.push_back(i == 0 ? 0x02 : 0x11);
  if (tagged) f.insert(f.end(), {0x81, 0x00, 0x00, 0x64});
  f.insert(f.end(), {static_cast<std::uint8_t>(ipv6 ? 0x86 : 0x08),
                     ipv6 ? std::uint8_t{0xdd} : std::uint8_t{0x00}});
  if (ipv6) {
    std::array<std::uint8_t, 40> ip{0x60};
    ip[6] = protocol;
    ip[7] = 255;
    f.insert(f.end(), ip.begin(), ip.end());
  } else {
    std::array<std::uint8_t, 20> ip{0x45};
    ip[8] = 255;
    ip[9] = protocol;
    f.insert(f.end(), ip.begin(), ip.end());
  }
  f.insert(f.end(), {0xc0, 0x00, static_cast<std::uint8_t>(port >> 8),
                     static_cast<std::uint8_t>(port), 0, 32, 0, 0});
  f.resize(f.size() + 24);
  return f;
}

// `f` with byte `index` set to `value` (bounds-checked).
std::vector<std::uint8_t> with_byte(std::vector<std::uint8_t> f, std::size_t index,
                                    std::uint8_t value) {
  f.at(index) = value;
  return f;
}

bool diverted(const std::vector<std::uint8_t>& f, const BfdDivertRule& rule) {
  return is_bfd_frame(f.data(), f.size(), rule, kMemberMac);
}

TEST(BfdDivert, MicroBfdToTheGroupOrTheMembersMac) {
  EXPECT_TRUE(diverted(frame(kMicroBfdMacKey, 6784), kMicro));
  EXPECT_TRUE(diverted(frame(kMemberMac, 6784), kMicro));
  EXPECT_TRUE(diverted(frame(kMicroBfdMacKey, 6784, true), kMicro));
  EXPECT_TRUE(diverted(frame(kMicroBfdMacKey, 6784, false, true), kMicro));
  EXPECT_TRUE(diverted(frame(kMemberMac, 6784, true, true), kMicro));
  // Not ours: another group address, another station, another port, not UDP.
  EXPECT_FALSE(diverted(frame(0x01005e000001, 6784), kMicro));
  EXPECT_FALSE(diverted(frame(0x02620000aa02, 6784), kMicro));
  EXPECT_FALSE(diverted(frame(kMicroBfdMacKey, 3784), kMicro));
  EXPECT_FALSE(diverted(frame(kMicroBfdMacKey, 6784, false, false, 6), kMicro));
  EXPECT_FALSE(diverted(frame(kMicroBfdMacKey, 6784, true, false, 6), kMicro));
}

TEST(BfdDivert, SingleHopOnlyToTheMembersMac) {
  EXPECT_TRUE(diverted(frame(kMemberMac, 3784), kSingleHop));
  EXPECT_TRUE(diverted(frame(kMemberMac, 3784, true), kSingleHop));
  EXPECT_FALSE(diverted(frame(kMicroBfdMacKey, 3784), kSingleHop));
  EXPECT_FALSE(diverted(frame(kMemberMac, 6784), kSingleHop));
}

TEST(BfdDivert, NothingWhileOffOrBeforeTheMemberHasAMacOrWhenTooShort) {
  EXPECT_FALSE(diverted(frame(kMicroBfdMacKey, 6784), BfdDivertRule{}));
  const std::vector<std::uint8_t> f = frame(kMemberMac, 3784);
  EXPECT_FALSE(is_bfd_frame(f.data(), f.size(), kSingleHop, 0));
  EXPECT_FALSE(is_bfd_frame(f.data(), 41, kSingleHop, kMemberMac));
  // A later IPv4 fragment: its bytes at the UDP header's place are payload.
  std::vector<std::uint8_t> fragment = frame(kMemberMac, 3784);
  fragment[14 + 7] = 0x10;
  EXPECT_FALSE(diverted(fragment, kSingleHop));
}

TEST(BfdPolicer, APeersPacketsHaveALimitOfTheirOwn) {
  BfdPolicer policer(1'000'000'000);
  std::vector<std::uint8_t> peer = frame(kMemberMac, 3784);
  // Another sender: the peer's frame from a different source MAC.
  const std::vector<std::uint8_t> other = with_byte(peer, 11, 0x99);
  const std::uint64_t peer_key = mac_key(peer.data() + 6);
  unsigned admitted = 0;
  for (int i = 0; i < 1000; ++i)
    admitted += policer.admit(other.data(), peer_key, 1'000) ? 1 : 0;
  EXPECT_EQ(admitted, kBfdFramesBurst);
  EXPECT_TRUE(policer.admit(peer.data(), peer_key, 1'000));
  // Before the peer is known, everyone shares one limit.
  EXPECT_FALSE(policer.admit(peer.data(), 0, 1'000));
  // It refills at kBfdFramesPerSecond.
  EXPECT_TRUE(policer.admit(other.data(), peer_key, 1'000 + 1'000'000'000 / kBfdFramesPerSecond));
}

}  // namespace
}  // namespace braid::bond
