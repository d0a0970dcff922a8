// What each policy promises: which fields move a flow and which do not (doc/flow.md).
#include "flow/hash_policy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "flow/flow_hash.hpp"
#include "frame_builder.hpp"

namespace braid::flow {
namespace {

using test::FrameBuilder;
using test::kIpv4A;
using test::kIpv4B;
using test::kIpv6A;
using test::kIpv6B;
using test::kMacA;
using test::kMacB;

constexpr test::Mac kMacC = {0x02, 0, 0, 0, 0, 0x0C};
constexpr test::Ipv4 kIpv4C = {203, 0, 113, 9};

std::uint32_t hash(HashPolicy policy, const std::vector<std::uint8_t>& frame) {
  return FlowHasher(policy).hash_frame(ByteSpan(frame));
}

std::vector<std::uint8_t> tcp4(const test::Mac& dst_mac, const test::Ipv4& src,
                               std::uint16_t src_port, std::uint16_t dst_port = 443) {
  return FrameBuilder()
      .ethernet(dst_mac, kMacA)
      .ipv4(src, kIpv4B)
      .tcp(src_port, dst_port)
      .build(64);
}

TEST(HashPolicyNames, RoundTripAndErrorListsValidNames) {
  for (HashPolicy policy : kAllHashPolicies) {
    const HashPolicyParse parsed = parse_hash_policy(to_string(policy));
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    EXPECT_EQ(parsed.policy, policy);
  }
  EXPECT_EQ(to_string(HashPolicy::vlan_srcmac), "vlan+srcmac");
  EXPECT_EQ(to_string(HashPolicy::toeplitz_sym), "toeplitz-sym");
  EXPECT_EQ(to_string(HashPolicy::nic_rss), "nic-rss");
  const HashPolicyParse bad = parse_hash_policy("layer3+4");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error,
            "hash policy \"layer3+4\" is not known (valid: l2, l23, l34, encap23, encap34, "
            "vlan+srcmac, toeplitz, toeplitz-sym, nic-rss)");
}

TEST(FlowHasherConfig, NicRssFallbackMustBeSoftware) {
  EXPECT_THROW(FlowHasher(HashPolicy::nic_rss, HashPolicy::nic_rss), std::invalid_argument);
  const std::array<std::uint8_t, 4> short_key{};
  EXPECT_THROW(FlowHasher(HashPolicy::toeplitz, HashPolicy::l34, short_key), std::invalid_argument);
  const FlowHasher hasher(HashPolicy::nic_rss, HashPolicy::encap34);
  EXPECT_EQ(hasher.software_policy(), HashPolicy::encap34);
  const auto frame = tcp4(kMacB, kIpv4A, 1);
  EXPECT_EQ(hasher.hash_frame(ByteSpan(frame)), hash(HashPolicy::encap34, frame));
}

TEST(HashPolicyL2, MacsAndEthertypeOnly) {
  EXPECT_EQ(hash(HashPolicy::l2, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l2, tcp4(kMacB, kIpv4C, 2)));
  EXPECT_NE(hash(HashPolicy::l2, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l2, tcp4(kMacC, kIpv4A, 1)));
  const auto arp = FrameBuilder().ethernet(kMacB, kMacA).ethertype(0x0806).build(60);
  EXPECT_NE(hash(HashPolicy::l2, arp), hash(HashPolicy::l2, tcp4(kMacB, kIpv4A, 1)));
}

TEST(HashPolicyL23, AddsAddressesIgnoresPorts) {
  EXPECT_EQ(hash(HashPolicy::l23, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l23, tcp4(kMacB, kIpv4A, 2)));
  EXPECT_NE(hash(HashPolicy::l23, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l23, tcp4(kMacB, kIpv4C, 1)));
  EXPECT_NE(hash(HashPolicy::l23, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l23, tcp4(kMacC, kIpv4A, 1)));
  const auto arp = FrameBuilder().ethernet(kMacB, kMacA).ethertype(0x0806).build(60);
  EXPECT_EQ(hash(HashPolicy::l23, arp), hash(HashPolicy::l2, arp));  // non-IP: layer2 formula
}

TEST(HashPolicyL34, AddressesAndPortsNotMacs) {
  EXPECT_EQ(hash(HashPolicy::l34, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l34, tcp4(kMacC, kIpv4A, 1)));
  EXPECT_NE(hash(HashPolicy::l34, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l34, tcp4(kMacB, kIpv4A, 2)));
  EXPECT_NE(hash(HashPolicy::l34, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l34, tcp4(kMacB, kIpv4A, 1, 80)));
  EXPECT_NE(hash(HashPolicy::l34, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::l34, tcp4(kMacB, kIpv4C, 1)));
}

TEST(HashPolicyFragments, AllFragmentsOfADatagramHashAlike) {
  for (HashPolicy policy :
       {HashPolicy::l34, HashPolicy::encap34, HashPolicy::toeplitz, HashPolicy::toeplitz_sym}) {
    auto fragment4 = [&](std::uint16_t field) {
      return hash(policy, FrameBuilder()
                              .ethernet(kMacB, kMacA)
                              .ipv4(kIpv4A, kIpv4B, field, 99)
                              .udp(5000, 6000)
                              .payload(32)
                              .build());
    };
    const std::uint32_t first = fragment4(0x2000);
    EXPECT_EQ(first, fragment4(0x2000 | 5)) << to_string(policy);
    EXPECT_EQ(first, fragment4(10)) << to_string(policy);

    auto fragment6 = [&](std::uint16_t offset, bool more) {
      return hash(policy, FrameBuilder()
                              .ethernet(kMacB, kMacA)
                              .ipv6(kIpv6A, kIpv6B)
                              .ipv6_fragment(offset, more, 1234)
                              .udp(5000, 6000)
                              .payload(32)
                              .build());
    };
    EXPECT_EQ(fragment6(0, true), fragment6(20, true)) << to_string(policy);
    EXPECT_EQ(fragment6(0, true), fragment6(40, false)) << to_string(policy);
  }
}

std::vector<std::uint8_t> roce(std::uint16_t src_port, std::uint32_t dest_qp) {
  return FrameBuilder()
      .ethernet(kMacB, kMacA)
      .ipv4(kIpv4A, kIpv4B)
      .udp(src_port, kUdpPortRocev2)
      .bth(dest_qp)
      .payload(16)
      .build();
}

TEST(HashPolicyRoce, DestinationQpIsTheEntropy) {
  for (HashPolicy policy : {HashPolicy::l34, HashPolicy::encap34}) {
    EXPECT_EQ(hash(policy, roce(49152, 0x11)), hash(policy, roce(61000, 0x11)))
        << to_string(policy);
    EXPECT_NE(hash(policy, roce(49152, 0x11)), hash(policy, roce(49152, 0x12)))
        << to_string(policy);
  }
  // Toeplitz stays RSS-compatible: it hashes the UDP ports like a NIC does.
  EXPECT_NE(hash(HashPolicy::toeplitz, roce(49152, 0x11)),
            hash(HashPolicy::toeplitz, roce(61000, 0x11)));
}

std::vector<std::uint8_t> vxlan(std::uint16_t outer_src_port, std::uint32_t vni,
                                std::uint16_t inner_src_port,
                                const test::Ipv4& inner_src = kIpv4A) {
  return FrameBuilder()
      .ethernet(kMacB, kMacA)
      .ipv4(kIpv4A, kIpv4B)
      .udp(outer_src_port, kUdpPortVxlan)
      .vxlan(vni)
      .ethernet(kMacC, kMacA)
      .ipv4(inner_src, kIpv4C)
      .tcp(inner_src_port, 80)
      .build();
}

TEST(HashPolicyEncap, InnerHeadersDecide) {
  // encap34: inner ports move the flow, the outer UDP source port does not.
  EXPECT_NE(hash(HashPolicy::encap34, vxlan(1000, 5, 1)),
            hash(HashPolicy::encap34, vxlan(1000, 5, 2)));
  EXPECT_EQ(hash(HashPolicy::encap34, vxlan(1000, 5, 1)),
            hash(HashPolicy::encap34, vxlan(2000, 5, 1)));
  EXPECT_NE(hash(HashPolicy::encap34, vxlan(1000, 5, 1)),
            hash(HashPolicy::encap34, vxlan(1000, 6, 1)));
  // encap23: inner addresses (and VNI), not ports.
  EXPECT_EQ(hash(HashPolicy::encap23, vxlan(1000, 5, 1)),
            hash(HashPolicy::encap23, vxlan(2000, 5, 2)));
  EXPECT_NE(hash(HashPolicy::encap23, vxlan(1000, 5, 1)),
            hash(HashPolicy::encap23, vxlan(1000, 5, 1, kIpv4B)));
  // l34 sees only the outer headers.
  EXPECT_EQ(hash(HashPolicy::l34, vxlan(1000, 5, 1)), hash(HashPolicy::l34, vxlan(1000, 5, 2)));
  // Without a tunnel encap34 is l34 (plus a zero tunnel word) over the outer headers.
  EXPECT_NE(hash(HashPolicy::encap34, tcp4(kMacB, kIpv4A, 1)),
            hash(HashPolicy::encap34, tcp4(kMacB, kIpv4A, 2)));
}

TEST(HashPolicyVlanSrcMac, VlanIdAndSourceMac) {
  auto frame = [](const test::Mac& dst, const test::Mac& src, std::uint16_t tci) {
    return FrameBuilder()
        .ethernet(dst, src)
        .vlan(kEtherTypeVlan, tci)
        .ipv4(kIpv4A, kIpv4B)
        .udp(1, 2)
        .build(64);
  };
  const HashPolicy policy = HashPolicy::vlan_srcmac;
  EXPECT_EQ(hash(policy, frame(kMacB, kMacA, 10)), hash(policy, frame(kMacC, kMacA, 10)));
  EXPECT_EQ(hash(policy, frame(kMacB, kMacA, 10)),
            hash(policy, frame(kMacB, kMacA, 0xE00A)));  // PCP
  EXPECT_NE(hash(policy, frame(kMacB, kMacA, 10)), hash(policy, frame(kMacB, kMacA, 11)));
  EXPECT_NE(hash(policy, frame(kMacB, kMacA, 10)), hash(policy, frame(kMacB, kMacC, 10)));
}

TEST(HashPolicySymmetric, BothDirectionsHashAlike) {
  const FlowHasher sym(HashPolicy::toeplitz_sym);
  const FlowHasher plain(HashPolicy::toeplitz);
  auto v4 = [](const test::Ipv4& a, const test::Ipv4& b, std::uint16_t pa, std::uint16_t pb) {
    return FrameBuilder().ethernet(kMacB, kMacA).ipv4(a, b).tcp(pa, pb).build(64);
  };
  auto v6 = [](const test::Ipv6& a, const test::Ipv6& b, std::uint16_t pa, std::uint16_t pb) {
    return FrameBuilder().ethernet(kMacB, kMacA).ipv6(a, b).udp(pa, pb).build(64);
  };
  const auto out4 = v4(kIpv4A, kIpv4B, 1234, 80), back4 = v4(kIpv4B, kIpv4A, 80, 1234);
  const auto out6 = v6(kIpv6A, kIpv6B, 1234, 80), back6 = v6(kIpv6B, kIpv6A, 80, 1234);
  EXPECT_EQ(sym.hash_frame(ByteSpan(out4)), sym.hash_frame(ByteSpan(back4)));
  EXPECT_EQ(sym.hash_frame(ByteSpan(out6)), sym.hash_frame(ByteSpan(back6)));
  EXPECT_NE(plain.hash_frame(ByteSpan(out4)), plain.hash_frame(ByteSpan(back4)));
  // Same address both ways (loopback-like): the ports decide the order.
  const auto same_a = v4(kIpv4A, kIpv4A, 1, 2), same_b = v4(kIpv4A, kIpv4A, 2, 1);
  EXPECT_EQ(sym.hash_frame(ByteSpan(same_a)), sym.hash_frame(ByteSpan(same_b)));
}

TEST(FlowHasherBurst, BurstEqualsPerPacket) {
  std::vector<std::vector<std::uint8_t>> frames;
  for (std::uint16_t i = 0; i < 70; ++i) {
    frames.push_back(i % 3 == 0 ? vxlan(i, i, static_cast<std::uint16_t>(i * 7))
                                : tcp4(kMacB, kIpv4A, i));
  }
  std::vector<ByteSpan> spans(frames.begin(), frames.end());
  for (HashPolicy policy : kAllHashPolicies) {
    const FlowHasher hasher(policy);
    std::vector<std::uint32_t> hashes(spans.size());
    hasher.hash_frame_burst(spans, hashes.data());
    for (std::size_t i = 0; i < spans.size(); ++i) {
      EXPECT_EQ(hashes[i], hasher.hash_frame(spans[i])) << to_string(policy) << " " << i;
    }
  }
}

}  // namespace
}  // namespace braid::flow
