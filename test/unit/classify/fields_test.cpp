// The fast path (fields_from_frame) against the flow parser (fields_from_key): same fields for
// every frame it accepts, over every truncation and random corruption of the shapes it knows.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "classify/classifier.hpp"
#include "classify/frame_fields.hpp"
#include "flow/l34_fast_path.hpp"
#include "flow/l34_fields.hpp"
#include "flow/parser.hpp"
#include "frame_builder.hpp"

namespace braid::classify {
namespace {

using flow::test::FrameBuilder;
using Frame = std::vector<std::uint8_t>;

FrameFields parsed(ByteSpan frame) {
  FrameFields fields;
  fields_from_key(flow::parse_flow_key(frame), fields);
  return fields;
}

// One level's headers: tagged or not, IPv4 or IPv6, TCP, UDP or RoCEv2 (the inner level of a
// VXLAN frame too, so its UDP may go to 4789 as well).
void random_level(FrameBuilder& builder, std::mt19937& random) {
  const auto byte = [&random] { return static_cast<std::uint8_t>(random()); };
  const auto port = [&random] { return static_cast<std::uint16_t>(random()); };
  if (random() % 2 == 0) builder.vlan(flow::kEtherTypeVlan, static_cast<std::uint16_t>(random()));
  if (random() % 3 == 0) {
    builder.ipv6(flow::test::kIpv6A, flow::test::kIpv6B, random()).traffic_class(byte());
  } else {
    builder.ipv4(flow::test::kIpv4A, flow::test::kIpv4B).traffic_class(byte());
  }
  switch (random() % 5) {
    case 0:
      builder.tcp(port(), port());
      break;
    case 1:
      builder.udp(port(), port());
      break;
    case 2:
      builder.udp(port(), flow::kUdpPortVxlan);
      break;
    default:
      builder.udp(port(), flow::kUdpPortRocev2).bth(random(), random(), byte());
      break;
  }
}

// A frame of the shapes the fast path knows, one in four of them inside VXLAN.
Frame random_frame(std::mt19937& random) {
  FrameBuilder builder;
  builder.ethernet(flow::test::kMacB, flow::test::kMacA);
  if (random() % 4 == 0) {
    if (random() % 2 == 0) builder.vlan(flow::kEtherTypeVlan, static_cast<std::uint16_t>(random()));
    builder.ipv4(flow::test::kIpv4A, flow::test::kIpv4B)
        .udp(static_cast<std::uint16_t>(random()), flow::kUdpPortVxlan)
        .vxlan(random() & 0xFFFFFF, random() % 8 == 0 ? 0 : 0x08)
        .ethernet(flow::test::kMacA, flow::test::kMacB);
  }
  random_level(builder, random);
  return builder.payload(random() % 24).build(random() % 2 == 0 ? 64 : 0);
}

TEST(FrameFields, FastPathAgreesWithTheParserOnEveryTruncationAndCorruption) {
  std::mt19937 random(16);
  std::size_t accepted = 0;
  std::size_t checked = 0;
  std::size_t tunnels = 0;
  for (int round = 0; round < 4000; ++round) {
    Frame frame = random_frame(random);
    // Corrupt up to three bytes among the headers (EtherType, TPID, IP version, lengths, VXLAN
    // flags, the inner headers, ...).
    for (unsigned flips = random() % 4; flips > 0; --flips)
      frame[random() % std::min<std::size_t>(frame.size(), 120)] =
          static_cast<std::uint8_t>(random());
    for (std::size_t size = 0; size <= frame.size(); ++size) {
      const ByteSpan bytes(frame.data(), size);
      FrameFields fast;
      ++checked;
      if (!fields_from_frame(bytes, fast)) continue;
      ++accepted;
      tunnels += fast.tunnel ? 1 : 0;
      ASSERT_EQ(fast, parsed(bytes)) << "round " << round << ", " << size << " bytes";
    }
  }
  // Every prefix counts, and prefixes shorter than the IP header never take the fast path; still
  // a good part of them does, and some (corrupted or cut) do not.
  EXPECT_GT(accepted, checked / 4);
  EXPECT_LT(accepted, checked);
  EXPECT_GT(tunnels, accepted / 20);  // VXLAN frames and their inner headers are among them
}

// What the l34 hash path reads for the classifier (flow/l34_fields.hpp) against the parser's outer
// fields, for every frame that path takes: tagged once or twice, IPv4 and IPv6, TCP, UDP, RoCEv2
// and VXLAN (whose outer fields only are read there), over every truncation and random
// corruption; and the class the classifier gives either way, under rules on every field with an
// inner one.
TEST(FrameFields, TheHashPathsFieldsAgreeWithTheParserOnEveryFrameItTakes) {
  using namespace flow::test;
  ClassifierSpec spec;
  spec.classes = {{"roce", {}}, {"tagged", {}}, {"ports", {}}, {"inner", {}}, {"rest", {}}};
  spec.default_class = 4;
  Rule roce;
  roce.class_id = 0;
  roce.roce_opcode = {{0, 0x7F}};
  roce.roce_dest_qp = {{0, 0x7FFFFF}};
  Rule tagged;
  tagged.class_id = 1;
  tagged.pcp = {{3, 3}};
  tagged.dscp = {{0, 40}};
  Rule ports;
  ports.class_id = 2;
  ports.protocol = {{flow::kIpProtoTcp, flow::kIpProtoTcp}};
  ports.dst_port = {{0, 30000}};
  ports.src_port = {{20000, 65535}};
  Rule inner;
  inner.class_id = 3;
  inner.header = HeaderLevel::inner;
  inner.protocol = {{flow::kIpProtoTcp, flow::kIpProtoTcp}};
  spec.rules = {roce, tagged, ports, inner};
  const Classifier classifier(spec);
  std::mt19937 random(34);
  std::size_t taken = 0;
  std::size_t checked = 0;
  for (int round = 0; round < 3000; ++round) {
    Frame frame;
    if (round % 5 == 0) {
      FrameBuilder builder;
      builder.ethernet(kMacB, kMacA);
      if (round % 10 == 0)
        builder.vlan(flow::kEtherTypeQinQ, static_cast<std::uint16_t>(random()))
            .vlan(flow::kEtherTypeVlan, static_cast<std::uint16_t>(random()));
      builder.ipv4(kIpv4A, kIpv4B).udp(static_cast<std::uint16_t>(random()), flow::kUdpPortVxlan);
      builder.vxlan(7).ethernet(kMacA, kMacB).ipv4(kIpv4B, kIpv4A);
      if (random() % 2 == 0) {
        builder.tcp(1, 2);
      } else {
        builder.udp(1, 2);
      }
      frame = builder.build();
    } else {
      frame = random_frame(random);
    }
    for (unsigned flips = random() % 3; flips > 0; --flips)
      frame[random() % std::min<std::size_t>(frame.size(), 70)] =
          static_cast<std::uint8_t>(random());
    for (std::size_t size = 0; size <= frame.size(); ++size) {
      const ByteSpan bytes(frame.data(), size);
      std::uint32_t hash = 0;
      ++checked;
      if (!flow::try_hash_l34(bytes, hash)) continue;
      ++taken;
      const flow::L34Fields l34 = flow::l34_fields(bytes);
      ASSERT_EQ(fields_from_l34(l34), parsed(bytes).outer)
          << "round " << round << ", " << size << " bytes";
      ASSERT_EQ(classifier.classify(l34, bytes), classifier.classify(bytes))
          << "round " << round << ", " << size << " bytes";
    }
  }
  EXPECT_GT(taken, checked / 6);  // every prefix counts: the short ones are never taken
}

TEST(FrameFields, FastPathReadsVxlanAndLeavesGreQinQAndExtensionHeadersToTheParser) {
  using namespace flow::test;
  FrameFields fields;
  const Frame vxlan = FrameBuilder()
                          .ethernet(kMacB, kMacA)
                          .ipv4(kIpv4A, kIpv4B)
                          .udp(1, flow::kUdpPortVxlan)
                          .vxlan(1)
                          .ethernet(kMacA, kMacB)
                          .vlan(flow::kEtherTypeVlan, 5 << 13 | 7)
                          .ipv4(kIpv4B, kIpv4A)
                          .tcp(1, 4420)
                          .build();
  ASSERT_TRUE(fields_from_frame(ByteSpan(vxlan), fields));
  EXPECT_TRUE(fields.tunnel);
  EXPECT_EQ(fields.outer.dst_port, flow::kUdpPortVxlan);
  EXPECT_EQ(fields.inner.pcp, 5);
  EXPECT_EQ(fields.inner.protocol, flow::kIpProtoTcp);
  EXPECT_EQ(fields.inner.dst_port, 4420);
  EXPECT_EQ(fields, parsed(ByteSpan(vxlan)));
  const Frame gre = FrameBuilder()
                        .ethernet(kMacB, kMacA)
                        .ipv4(kIpv4A, kIpv4B)
                        .gre()
                        .ipv4(kIpv4B, kIpv4A)
                        .tcp(1, 2)
                        .build();
  EXPECT_FALSE(fields_from_frame(ByteSpan(gre), fields));
  EXPECT_TRUE(parsed(ByteSpan(gre)).tunnel);
  const Frame qinq = FrameBuilder()
                         .ethernet(kMacB, kMacA)
                         .vlan(flow::kEtherTypeQinQ, 1)
                         .vlan(flow::kEtherTypeVlan, 2)
                         .ipv4(kIpv4A, kIpv4B)
                         .tcp(1, 2)
                         .build();
  EXPECT_FALSE(fields_from_frame(ByteSpan(qinq), fields));
  const Frame ext = FrameBuilder()
                        .ethernet(kMacB, kMacA)
                        .ipv6(kIpv6A, kIpv6B)
                        .ipv6_extension(flow::kIpProtoHopByHop)
                        .tcp(1, 2)
                        .build();
  EXPECT_FALSE(fields_from_frame(ByteSpan(ext), fields));
  const Frame tcp = FrameBuilder()
                        .ethernet(kMacB, kMacA)
                        .vlan(flow::kEtherTypeVlan, 3 << 13 | 100)
                        .ipv4(kIpv4A, kIpv4B)
                        .traffic_class(46 << 2 | 1)
                        .tcp(1000, 4420)
                        .build();
  ASSERT_TRUE(fields_from_frame(ByteSpan(tcp), fields));
  EXPECT_EQ(fields.outer.pcp, 3);
  EXPECT_EQ(fields.outer.dscp, 46);
  EXPECT_EQ(fields.outer.protocol, flow::kIpProtoTcp);
  EXPECT_TRUE(fields.outer.has_ports);
  EXPECT_EQ(fields.outer.src_port, 1000);
  EXPECT_EQ(fields.outer.dst_port, 4420);
  EXPECT_EQ(fields.outer.roce_opcode, kNoRoceOpcode);
  EXPECT_FALSE(fields.tunnel);
}

}  // namespace
}  // namespace braid::classify
