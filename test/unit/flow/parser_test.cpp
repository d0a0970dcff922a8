// Golden keys for every header stack the parser understands, and its reason codes.
#include "flow/parser.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

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

FlowKey parse(const std::vector<std::uint8_t>& frame) {
  return parse_flow_key(ByteSpan(frame));
}

std::array<std::uint8_t, 16> v4(const test::Ipv4& addr) {
  std::array<std::uint8_t, 16> out{};
  std::copy(addr.begin(), addr.end(), out.begin());
  return out;
}

TEST(FlowParser, Ipv4TcpGoldenKey) {
  const auto frame =
      FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).tcp(40000, 443).build(64);
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3 | kLayerL4);
  EXPECT_EQ(key.l2.dst_mac, kMacB);
  EXPECT_EQ(key.l2.src_mac, kMacA);
  EXPECT_EQ(key.l2.ethertype, kEtherTypeIpv4);
  EXPECT_EQ(key.l2.vlan_count, 0);
  EXPECT_EQ(key.l3.version, 4);
  EXPECT_EQ(key.l3.protocol, kIpProtoTcp);
  EXPECT_EQ(key.l3.src_addr, v4(kIpv4A));
  EXPECT_EQ(key.l3.dst_addr, v4(kIpv4B));
  EXPECT_EQ(key.l3.fragment, 0);
  EXPECT_EQ(key.l3.fragment_id, 0x1234U);
  EXPECT_EQ(key.l4.src_port, 40000);
  EXPECT_EQ(key.l4.dst_port, 443);
  EXPECT_EQ(key.tunnel.kind, TunnelKind::none);
  EXPECT_FALSE(key.is_slow_protocol());
}

TEST(FlowParser, Ipv4OptionsAreSkipped) {
  const auto frame = FrameBuilder()
                         .ethernet(kMacB, kMacA)
                         .ipv4(kIpv4A, kIpv4B, 0, 1, {0x94, 0x04, 0x00, 0x00, 1, 1, 1, 0})
                         .udp(1000, 2000)
                         .build();
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.l4.src_port, 1000);
  EXPECT_EQ(key.l4.dst_port, 2000);
}

TEST(FlowParser, Ipv6UdpGoldenKey) {
  const auto frame =
      FrameBuilder().ethernet(kMacB, kMacA).ipv6(kIpv6A, kIpv6B, 0xABCDE).udp(5353, 53).build();
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3 | kLayerL4);
  EXPECT_EQ(key.l2.ethertype, kEtherTypeIpv6);
  EXPECT_EQ(key.l3.version, 6);
  EXPECT_EQ(key.l3.flow_label, 0xABCDEU);
  EXPECT_EQ(key.l3.protocol, kIpProtoUdp);
  EXPECT_EQ(key.l3.src_addr, kIpv6A);
  EXPECT_EQ(key.l3.dst_addr, kIpv6B);
  EXPECT_EQ(key.l4.src_port, 5353);
  EXPECT_EQ(key.l4.dst_port, 53);
}

TEST(FlowParser, SingleVlanTag) {
  const auto frame = FrameBuilder()
                         .ethernet(kMacB, kMacA)
                         .vlan(kEtherTypeVlan, 0x2064)
                         .ipv4(kIpv4A, kIpv4B)
                         .udp(1, 2)
                         .build(64);
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerVlan | kLayerL3 | kLayerL4);
  EXPECT_EQ(key.l2.vlan_count, 1);
  EXPECT_EQ(key.l2.vlan_tci[0], 0x2064);
  EXPECT_EQ(key.l2.ethertype, kEtherTypeIpv4);
  EXPECT_EQ(key.l4.dst_port, 2);
}

TEST(FlowParser, QinQBothTpids) {
  for (std::uint16_t outer_tpid : {kEtherTypeQinQ, kEtherTypeQinQLegacy}) {
    const auto frame = FrameBuilder()
                           .ethernet(kMacB, kMacA)
                           .vlan(outer_tpid, 0x0100)
                           .vlan(kEtherTypeVlan, 0x0200)
                           .ipv6(kIpv6A, kIpv6B)
                           .tcp(7, 8)
                           .build();
    const FlowKey key = parse(frame);
    EXPECT_EQ(key.status, ParseStatus::ok);
    EXPECT_EQ(key.l2.vlan_count, 2);
    EXPECT_EQ(key.l2.vlan_tci[0], 0x0100);
    EXPECT_EQ(key.l2.vlan_tci[1], 0x0200);
    EXPECT_EQ(key.l4.src_port, 7);
  }
}

TEST(FlowParser, ThirdVlanTagStopsAtL2) {
  const auto frame = FrameBuilder()
                         .ethernet(kMacB, kMacA)
                         .vlan(kEtherTypeQinQ, 1)
                         .vlan(kEtherTypeVlan, 2)
                         .vlan(kEtherTypeVlan, 3)
                         .ipv4(kIpv4A, kIpv4B)
                         .build();
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::vlan_depth_exceeded);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerVlan);
  EXPECT_EQ(key.l2.vlan_count, 2);
}

TEST(FlowParser, SlowProtocolFrameIsRecognised) {
  auto frame = FrameBuilder()
                   .ethernet({0x01, 0x80, 0xC2, 0x00, 0x00, 0x02}, kMacA)
                   .ethertype(kEtherTypeSlowProtocols)
                   .raw({0x01, 0x01})  // subtype LACP, version 1
                   .build(124);
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2);
  EXPECT_TRUE(key.is_slow_protocol());
  // A tagged 0x8809 frame is not a slow-protocol frame (they are untagged by definition).
  frame = FrameBuilder().ethernet(kMacB, kMacA).vlan(kEtherTypeVlan, 5).ethertype(0x8809).build(64);
  EXPECT_FALSE(parse(frame).is_slow_protocol());
}

TEST(FlowParser, UnknownEthertypeGivesL2Key) {
  const auto frame = FrameBuilder().ethernet(kMacB, kMacA).ethertype(0x0806).build(60);  // ARP
  const FlowKey key = parse(frame);
  EXPECT_EQ(key.status, ParseStatus::unknown_ethertype);
  EXPECT_FALSE(is_error(key.status));
  EXPECT_EQ(key.layers, kLayerL2);
  EXPECT_EQ(key.l2.ethertype, 0x0806);
}

TEST(FlowParser, SctpIcmpAndIcmpv6) {
  FlowKey key =
      parse(FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).sctp(36412, 38412).build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.l3.protocol, kIpProtoSctp);
  EXPECT_EQ(key.l4.src_port, 36412);
  EXPECT_EQ(key.l4.dst_port, 38412);

  key = parse(FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).icmp(8, 0).build(64));
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_TRUE(key.has(kLayerL4));
  EXPECT_EQ(key.l4.icmp_type, 8);
  EXPECT_EQ(key.l4.src_port, 0);

  key = parse(FrameBuilder().ethernet(kMacB, kMacA).ipv6(kIpv6A, kIpv6B).icmp(135, 0).build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.l3.protocol, kIpProtoIcmpv6);
  EXPECT_EQ(key.l4.icmp_type, 135);
}

TEST(FlowParser, UnknownL4GivesL3Key) {
  const FlowKey key = parse(
      FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).protocol(89).payload(20).build());
  EXPECT_EQ(key.status, ParseStatus::unknown_l4);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3);
  EXPECT_EQ(key.l3.protocol, 89);
}

TEST(FlowParser, Ipv4FragmentsStopAtL3) {
  const std::uint16_t kMoreFragments = 0x2000;
  const std::uint16_t kDontFragment = 0x4000;
  struct Case {
    std::uint16_t field;
    std::uint8_t fragment;
  };
  for (const Case& c :
       {Case{kMoreFragments, kFragment | kFirstFragment}, Case{kMoreFragments | 185, kFragment},
        Case{370, kFragment}, Case{kDontFragment, 0}}) {
    const FlowKey key = parse(FrameBuilder()
                                  .ethernet(kMacB, kMacA)
                                  .ipv4(kIpv4A, kIpv4B, c.field, 0xBEEF)
                                  .udp(1111, 2222)
                                  .payload(16)
                                  .build());
    EXPECT_EQ(key.status, ParseStatus::ok);
    EXPECT_EQ(key.l3.fragment, c.fragment) << std::hex << c.field;
    EXPECT_EQ(key.l3.fragment_id, 0xBEEFU);
    EXPECT_EQ(key.has(kLayerL4), c.fragment == 0);
    EXPECT_EQ(key.l4.src_port, c.fragment == 0 ? 1111 : 0);
  }
}

TEST(FlowParser, Ipv6ExtensionHeaderChain) {
  const FlowKey key = parse(FrameBuilder()
                                .ethernet(kMacB, kMacA)
                                .ipv6(kIpv6A, kIpv6B)
                                .ipv6_extension(kIpProtoHopByHop)
                                .ipv6_extension(kIpProtoRouting, 2)
                                .ipv6_extension(kIpProtoDestOptions, 1)
                                .tcp(9, 10)
                                .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.l3.protocol, kIpProtoTcp);
  EXPECT_EQ(key.l4.src_port, 9);
  EXPECT_EQ(key.l4.dst_port, 10);
}

TEST(FlowParser, Ipv6FragmentHeader) {
  // First fragment, a later fragment, and an atomic fragment (RFC 6946: not fragmented).
  FlowKey key = parse(FrameBuilder()
                          .ethernet(kMacB, kMacA)
                          .ipv6(kIpv6A, kIpv6B)
                          .ipv6_fragment(0, true, 0xA1B2C3D4)
                          .udp(1, 2)
                          .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.l3.fragment, kFragment | kFirstFragment);
  EXPECT_EQ(key.l3.fragment_id, 0xA1B2C3D4U);
  EXPECT_EQ(key.l3.protocol, kIpProtoUdp);
  EXPECT_FALSE(key.has(kLayerL4));

  key = parse(FrameBuilder()
                  .ethernet(kMacB, kMacA)
                  .ipv6(kIpv6A, kIpv6B)
                  .ipv6_fragment(100, false, 7)
                  .udp(1, 2)
                  .build());
  EXPECT_EQ(key.l3.fragment, kFragment);
  EXPECT_FALSE(key.has(kLayerL4));

  key = parse(FrameBuilder()
                  .ethernet(kMacB, kMacA)
                  .ipv6(kIpv6A, kIpv6B)
                  .ipv6_fragment(0, false, 7)
                  .udp(1, 2)
                  .build());
  EXPECT_EQ(key.l3.fragment, 0);
  EXPECT_EQ(key.l4.dst_port, 2);
}

TEST(FlowParser, Ipv6BadExtensionChains) {
  // Hop-by-hop after another extension header (RFC 8200 §4.1).
  FlowKey key = parse(FrameBuilder()
                          .ethernet(kMacB, kMacA)
                          .ipv6(kIpv6A, kIpv6B)
                          .ipv6_extension(kIpProtoDestOptions)
                          .ipv6_extension(kIpProtoHopByHop)
                          .tcp(1, 2)
                          .build());
  EXPECT_EQ(key.status, ParseStatus::bad_ipv6_ext);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3);

  FrameBuilder too_long;
  too_long.ethernet(kMacB, kMacA).ipv6(kIpv6A, kIpv6B);
  for (int i = 0; i < 9; ++i)
    too_long.ipv6_extension(kIpProtoDestOptions);
  key = parse(too_long.tcp(1, 2).build());
  EXPECT_EQ(key.status, ParseStatus::bad_ipv6_ext);
}

TEST(FlowParser, MalformedIpv4) {
  auto frame = FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).tcp(1, 2).build();
  auto with = [&](std::size_t offset, std::uint8_t value) {
    auto copy = frame;
    copy[offset] = value;
    return parse(copy);
  };
  EXPECT_EQ(with(14, 0x44).status, ParseStatus::bad_ipv4_ihl);
  EXPECT_EQ(with(14, 0x65).status, ParseStatus::bad_ip_version);
  EXPECT_EQ(with(14, 0x4F).status, ParseStatus::truncated_l3);  // 60-byte header, 40 present
  FlowKey key = with(17, 10);                                   // total length 10 < 20
  EXPECT_EQ(key.status, ParseStatus::bad_ipv4_length);
  EXPECT_EQ(key.layers, kLayerL2);
  // Total length 20: the TCP header lies in what is then Ethernet padding.
  key = with(17, 20);
  EXPECT_EQ(key.status, ParseStatus::truncated_l4);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3);
}

TEST(FlowParser, RoceV2DestinationQp) {
  const FlowKey key = parse(FrameBuilder()
                                .ethernet(kMacB, kMacA)
                                .ipv4(kIpv4A, kIpv4B)
                                .udp(49152, kUdpPortRocev2)
                                .bth(0x00ABCDEF)
                                .payload(16)
                                .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3 | kLayerL4 | kLayerRoce);
  EXPECT_EQ(key.l4.roce_dest_qp, 0xABCDEFU);
  EXPECT_EQ(key.l4.roce_opcode, 0x04);  // RC SEND only
}

TEST(FlowParser, TrafficClassAndBthOpcode) {
  // DSCP 46 (EF) with ECT(0); the frame builder's BTH opcode 0x0A is RC RDMA WRITE only.
  const FlowKey v4 = parse(FrameBuilder()
                               .ethernet(kMacB, kMacA)
                               .ipv4(kIpv4A, kIpv4B)
                               .traffic_class(46 << 2 | 2)
                               .udp(49152, kUdpPortRocev2)
                               .bth(7, 0, 0x0A)
                               .build());
  EXPECT_EQ(v4.l3.traffic_class, 46 << 2 | 2);
  EXPECT_EQ(v4.l4.roce_opcode, 0x0A);
  const FlowKey v6 = parse(FrameBuilder()
                               .ethernet(kMacB, kMacA)
                               .ipv6(kIpv6A, kIpv6B, 0xABCDE)
                               .traffic_class(26 << 2 | 1)
                               .tcp(1, 2)
                               .build());
  EXPECT_EQ(v6.l3.traffic_class, 26 << 2 | 1);
  EXPECT_EQ(v6.l3.flow_label, 0xABCDEU);  // the Traffic Class does not spill into it
  EXPECT_EQ(v6.l3.version, 6);
}

TEST(FlowParser, VxlanInnerHeaders) {
  const FlowKey key = parse(FrameBuilder()
                                .ethernet(kMacB, kMacA)
                                .ipv4(kIpv4A, kIpv4B)
                                .udp(51000, kUdpPortVxlan)
                                .vxlan(0x123456)
                                .ethernet(kMacA, kMacB)
                                .vlan(kEtherTypeVlan, 42)
                                .ipv6(kIpv6B, kIpv6A)
                                .tcp(3260, 50000)
                                .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3 | kLayerL4 | kLayerEncap | kLayerInnerL2 |
                            kLayerInnerVlan | kLayerInnerL3 | kLayerInnerL4);
  EXPECT_EQ(key.l4.dst_port, kUdpPortVxlan);
  EXPECT_EQ(key.tunnel.kind, TunnelKind::vxlan);
  EXPECT_EQ(key.tunnel.id, 0x123456U);
  EXPECT_EQ(key.inner_l2.src_mac, kMacB);
  EXPECT_EQ(key.inner_l2.vlan_tci[0], 42);
  EXPECT_EQ(key.inner_l3.version, 6);
  EXPECT_EQ(key.inner_l3.src_addr, kIpv6B);
  EXPECT_EQ(key.inner_l4.src_port, 3260);
  EXPECT_EQ(key.inner_l4.dst_port, 50000);
}

TEST(FlowParser, VxlanWithoutVniFlagIsBad) {
  const FlowKey key = parse(FrameBuilder()
                                .ethernet(kMacB, kMacA)
                                .ipv4(kIpv4A, kIpv4B)
                                .udp(1, kUdpPortVxlan)
                                .vxlan(5, 0x00)
                                .payload(14)
                                .build());
  EXPECT_EQ(key.status, ParseStatus::bad_tunnel);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3 | kLayerL4);
}

TEST(FlowParser, GreIpv4InIpv4WithKey) {
  const FlowKey key = parse(FrameBuilder()
                                .ethernet(kMacB, kMacA)
                                .ipv4(kIpv4A, kIpv4B)
                                .gre(true, 0xDEADBEEF, true, true)
                                .ipv4(kIpv4B, kIpv4A)
                                .udp(4000, 5000)
                                .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.layers, kLayerL2 | kLayerL3 | kLayerEncap | kLayerInnerL3 | kLayerInnerL4);
  EXPECT_EQ(key.tunnel.kind, TunnelKind::gre);
  EXPECT_TRUE(key.tunnel.has_id);
  EXPECT_EQ(key.tunnel.id, 0xDEADBEEFU);
  EXPECT_EQ(key.tunnel.gre_protocol, kEtherTypeIpv4);
  EXPECT_EQ(key.inner_l3.src_addr, v4(kIpv4B));
  EXPECT_EQ(key.inner_l4.src_port, 4000);
}

TEST(FlowParser, GreOverIpv6CarryingIpv6AndTeb) {
  FlowKey key = parse(FrameBuilder()
                          .ethernet(kMacB, kMacA)
                          .ipv6(kIpv6A, kIpv6B)
                          .gre()
                          .ipv6(kIpv6B, kIpv6A)
                          .tcp(1, 2)
                          .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_FALSE(key.tunnel.has_id);
  EXPECT_EQ(key.inner_l3.version, 6);
  EXPECT_EQ(key.inner_l4.dst_port, 2);

  key = parse(FrameBuilder()
                  .ethernet(kMacB, kMacA)
                  .ipv6(kIpv6A, kIpv6B)
                  .gre(true, 9)
                  .ethertype(kEtherTypeTeb)
                  .ethernet(kMacA, kMacB)
                  .ipv4(kIpv4A, kIpv4B)
                  .udp(3, 4)
                  .build());
  EXPECT_EQ(key.status, ParseStatus::ok);
  EXPECT_EQ(key.tunnel.gre_protocol, kEtherTypeTeb);
  EXPECT_TRUE(key.has(kLayerInnerL2));
  EXPECT_EQ(key.inner_l2.dst_mac, kMacA);
  EXPECT_EQ(key.inner_l4.src_port, 3);
}

TEST(FlowParser, GreRoutingOrVersionIsBad) {
  for (std::uint16_t flags : {std::uint16_t{0x4000}, std::uint16_t{0x0001}}) {
    const FlowKey key = parse(FrameBuilder()
                                  .ethernet(kMacB, kMacA)
                                  .ipv4(kIpv4A, kIpv4B)
                                  .gre(false, 0, false, false, flags)
                                  .ipv4(kIpv4A, kIpv4B)
                                  .tcp(1, 2)
                                  .build());
    EXPECT_EQ(key.status, ParseStatus::bad_tunnel);
    EXPECT_FALSE(key.has(kLayerEncap));
  }
}

TEST(FlowParser, StatusNamesAreDistinct) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(ParseStatus::bad_tunnel); ++i) {
    names.insert(std::string(to_string(static_cast<ParseStatus>(i))));
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(ParseStatus::bad_tunnel) + 1);
  EXPECT_EQ(names.count("unknown"), 0U);
}

}  // namespace
}  // namespace braid::flow
