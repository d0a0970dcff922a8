// The classifier on built frames: each field a rule can name, first-match order, the default,
// tunnels, VLAN tags, IPv6 extension headers, fragments and truncated frames.
#include "classify/classifier.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/parser.hpp"
#include "frame_builder.hpp"
#include "reference_classifier.hpp"

namespace braid::classify {
namespace {

using flow::test::FrameBuilder;
using flow::test::kIpv4A;
using flow::test::kIpv4B;
using flow::test::kIpv6A;
using flow::test::kIpv6B;
using flow::test::kMacA;
using flow::test::kMacB;
using Frame = std::vector<std::uint8_t>;

constexpr ClassId kCritical = 0;
constexpr ClassId kFront = 1;
constexpr ClassId kBulk = 2;

// Three classes (critical, front, bulk: the default) and the rules given, plus, for each class
// no rule names, one that never matches the test frames (so every class stays reachable even
// when a test moves the default).
ClassifierSpec spec_with(std::vector<Rule> rules) {
  ClassifierSpec spec;
  spec.classes = {{"critical"}, {"front"}, {"bulk"}};
  spec.default_class = kBulk;
  spec.rules = std::move(rules);
  for (ClassId id : {kCritical, kFront, kBulk}) {
    bool named = false;
    for (const Rule& rule : spec.rules)
      named = named || rule.class_id == id;
    if (!named) {
      Rule never;
      never.class_id = id;
      never.header = HeaderLevel::inner;
      never.pcp = {{7, 7}};
      never.dscp = {{63, 63}};
      never.protocol = {{254, 254}};
      spec.rules.push_back(never);
    }
  }
  return spec;
}

Rule rule_for(ClassId id) {
  Rule rule;
  rule.class_id = id;
  return rule;
}

// Classifies by the fast path (or parser) and by a parsed key: both must agree.
ClassId classify(const Classifier& classifier, const Frame& frame) {
  const ByteSpan bytes(frame);
  const ClassId by_frame = classifier.classify(bytes);
  EXPECT_EQ(by_frame, classifier.classify(flow::parse_flow_key(bytes)));
  return by_frame;
}

Frame tcp4(std::uint16_t src, std::uint16_t dst, std::uint8_t traffic_class = 0) {
  return FrameBuilder()
      .ethernet(kMacB, kMacA)
      .ipv4(kIpv4A, kIpv4B)
      .traffic_class(traffic_class)
      .tcp(src, dst)
      .build(64);
}

Frame roce4(std::uint32_t qp, std::uint8_t opcode, std::uint16_t pcp_tci = 0) {
  FrameBuilder builder;
  builder.ethernet(kMacB, kMacA);
  if (pcp_tci != 0) builder.vlan(flow::kEtherTypeVlan, pcp_tci);
  return builder.ipv4(kIpv4A, kIpv4B)
      .traffic_class(26 << 2)
      .udp(49152, flow::kUdpPortRocev2)
      .bth(qp, 0, opcode)
      .payload(16)
      .build();
}

TEST(Classifier, DscpValuesAndRanges) {
  Rule ef = rule_for(kCritical);
  ef.dscp = {{46, 46}};
  Rule af = rule_for(kFront);
  af.dscp = {{10, 14}, {26, 26}};
  const Classifier classifier(spec_with({ef, af}));
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 46 << 2)), kCritical);
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 46 << 2 | 3)), kCritical);  // CE: ECN bits ignored
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 10 << 2)), kFront);
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 14 << 2)), kFront);
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 26 << 2)), kFront);
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 15 << 2)), kBulk);
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 0)), kBulk);
  const Frame v6 = FrameBuilder()
                       .ethernet(kMacB, kMacA)
                       .ipv6(kIpv6A, kIpv6B, 0xFFFFF)
                       .traffic_class(46 << 2)
                       .udp(1, 2)
                       .build();
  EXPECT_EQ(classify(classifier, v6), kCritical);
  // Not IP: a DSCP rule cannot match.
  EXPECT_EQ(classify(classifier, FrameBuilder().ethernet(kMacB, kMacA).ethertype(0x0806).build(64)),
            kBulk);
}

TEST(Classifier, VlanPcpOfTheOutermostTag) {
  Rule prio3 = rule_for(kCritical);
  prio3.pcp = {{3, 3}};
  const Classifier classifier(spec_with({prio3}));
  const auto tagged = [](std::vector<std::uint16_t> tcis) {
    FrameBuilder builder;
    builder.ethernet(kMacB, kMacA);
    std::uint16_t tpid = tcis.size() == 2 ? flow::kEtherTypeQinQ : flow::kEtherTypeVlan;
    for (std::uint16_t tci : tcis) {
      builder.vlan(tpid, tci);
      tpid = flow::kEtherTypeVlan;
    }
    return builder.ipv4(kIpv4A, kIpv4B).udp(1, 2).build(64);
  };
  EXPECT_EQ(classify(classifier, tagged({3 << 13 | 100})), kCritical);
  EXPECT_EQ(classify(classifier, tagged({3 << 13 | 1 << 12 | 100})), kCritical);  // DEI set
  EXPECT_EQ(classify(classifier, tagged({4 << 13 | 100})), kBulk);
  EXPECT_EQ(classify(classifier, tagged({3 << 13 | 10, 0 << 13 | 20})), kCritical);  // QinQ
  EXPECT_EQ(classify(classifier, tagged({0 << 13 | 10, 3 << 13 | 20})), kBulk);
  EXPECT_EQ(classify(classifier, tagged({})), kBulk);  // untagged
  // A tagged non-IP frame still has its PCP.
  EXPECT_EQ(classify(classifier, FrameBuilder()
                                     .ethernet(kMacB, kMacA)
                                     .vlan(flow::kEtherTypeVlan, 3 << 13)
                                     .ethertype(0x0806)
                                     .build(64)),
            kCritical);
}

TEST(Classifier, ProtocolAndPortRanges) {
  Rule nvme = rule_for(kCritical);  // NVMe/TCP to 4420
  nvme.protocol = {{flow::kIpProtoTcp, flow::kIpProtoTcp}};
  nvme.dst_port = {{4420, 4420}};
  Rule iscsi = rule_for(kFront);  // iSCSI either way, TCP or UDP
  iscsi.src_port = {{3260, 3260}};
  Rule high = rule_for(kFront);
  high.dst_port = {{60000, 65535}};
  const Classifier classifier(spec_with({nvme, iscsi, high}));
  EXPECT_EQ(classify(classifier, tcp4(40000, 4420)), kCritical);
  EXPECT_EQ(classify(classifier, tcp4(40000, 4421)), kBulk);
  EXPECT_EQ(classify(classifier, tcp4(3260, 40000)), kFront);
  EXPECT_EQ(classify(classifier, tcp4(1, 60000)), kFront);
  EXPECT_EQ(classify(classifier, tcp4(1, 65535)), kFront);
  EXPECT_EQ(classify(classifier, tcp4(1, 59999)), kBulk);
  // UDP to 4420 is not NVMe/TCP.
  EXPECT_EQ(
      classify(classifier,
               FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).udp(1, 4420).build(64)),
      kBulk);
  // SCTP has ports too; ICMP has none.
  EXPECT_EQ(
      classify(classifier,
               FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).sctp(3260, 9).build(64)),
      kFront);
  Rule icmp = rule_for(kCritical);
  icmp.protocol = {{flow::kIpProtoIcmp, flow::kIpProtoIcmp}};
  const Classifier by_protocol(spec_with({icmp}));
  EXPECT_EQ(
      classify(by_protocol,
               FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B).icmp(8, 0).build(64)),
      kCritical);
  EXPECT_EQ(classify(by_protocol, tcp4(1, 2)), kBulk);
}

TEST(Classifier, RoceByOpcodeAndQueuePair) {
  Rule writes = rule_for(kCritical);  // RC RDMA WRITE first/middle/last/only
  writes.roce_opcode = {{0x06, 0x0A}};
  Rule qps = rule_for(kFront);
  qps.roce_dest_qp = {{0x100, 0x1FF}};
  Rule any = rule_for(kBulk);
  any.roce = true;
  Rule other = rule_for(kFront);
  other.dscp = {{26, 26}};
  const Classifier classifier(spec_with({writes, qps, any, other}));
  EXPECT_EQ(classify(classifier, roce4(0x150, 0x0A)), kCritical);
  EXPECT_EQ(classify(classifier, roce4(0x150, 0x04)), kFront);
  EXPECT_EQ(classify(classifier, roce4(0x200, 0x04)), kBulk);  // RoCE, rule 2
  // A non-RoCE frame with DSCP 26 skips every RoCE rule and takes rule 3.
  EXPECT_EQ(classify(classifier, tcp4(1, 2, 26 << 2)), kFront);
  FrameFields fields;
  ASSERT_TRUE(fields_from_frame(ByteSpan(roce4(0x200, 0x04)), fields));
  EXPECT_EQ(classifier.first_rule(fields), 2);
  ASSERT_TRUE(fields_from_frame(ByteSpan(tcp4(1, 2, 26 << 2)), fields));
  EXPECT_EQ(classifier.first_rule(fields), 3);
  // A BTH cut short: UDP 4791 but not RoCE, so the RoCE rules pass it by and its DSCP 26 takes
  // rule 3.
  Frame cut = roce4(0x150, 0x0A);
  cut.resize(14 + 20 + 8 + 11);
  cut[16] = 0;
  cut[17] = 20 + 8 + 11;  // total length matches the cut
  EXPECT_EQ(classify(classifier, cut), kFront);
  ASSERT_TRUE(fields_from_frame(ByteSpan(cut), fields));
  EXPECT_EQ(classifier.first_rule(fields), 3);
}

TEST(Classifier, FirstMatchWinsInRuleOrder) {
  Rule by_pcp = rule_for(kCritical);
  by_pcp.pcp = {{3, 3}};
  Rule by_dscp = rule_for(kFront);
  by_dscp.dscp = {{26, 26}};
  const Frame both = roce4(1, 0x04, 3 << 13);  // PCP 3 and DSCP 26
  EXPECT_EQ(classify(Classifier(spec_with({by_pcp, by_dscp})), both), kCritical);
  EXPECT_EQ(classify(Classifier(spec_with({by_dscp, by_pcp})), both), kFront);
  // Two rules of one class, the later more specific: the earlier wins, same class.
  Rule broad = rule_for(kFront);
  broad.protocol = {{flow::kIpProtoTcp, flow::kIpProtoTcp}};
  Rule narrow = rule_for(kCritical);
  narrow.dst_port = {{443, 443}};
  EXPECT_EQ(classify(Classifier(spec_with({broad, narrow})), tcp4(1, 443)), kFront);
  EXPECT_EQ(classify(Classifier(spec_with({narrow, broad})), tcp4(1, 443)), kCritical);
}

TEST(Classifier, EveryFieldOfARuleMustMatch) {
  Rule rule = rule_for(kCritical);
  rule.pcp = {{3, 3}};
  rule.dscp = {{26, 26}};
  rule.roce_dest_qp = {{1, 1}};
  const Classifier classifier(spec_with({rule}));
  EXPECT_EQ(classify(classifier, roce4(1, 0x04, 3 << 13)), kCritical);
  EXPECT_EQ(classify(classifier, roce4(2, 0x04, 3 << 13)), kBulk);
  EXPECT_EQ(classify(classifier, roce4(1, 0x04, 2 << 13)), kBulk);
  EXPECT_EQ(classify(classifier, roce4(1, 0x04)), kBulk);  // untagged
}

TEST(Classifier, NoClassesPutsEverythingInClassZero) {
  const Classifier classifier{ClassifierSpec{}};
  EXPECT_EQ(classify(classifier, tcp4(1, 2)), 0);
  EXPECT_EQ(classify(classifier, Frame{}), 0);
}

TEST(Classifier, DefaultCatchesTheRestIncludingGarbage) {
  Rule rule = rule_for(kCritical);
  rule.dst_port = {{80, 80}};
  ClassifierSpec spec = spec_with({rule});
  spec.default_class = kFront;
  const Classifier classifier(spec);
  EXPECT_EQ(classify(classifier, tcp4(1, 80)), kCritical);
  EXPECT_EQ(classify(classifier, tcp4(1, 81)), kFront);
  EXPECT_EQ(classify(classifier, Frame{}), kFront);
  EXPECT_EQ(classify(classifier, Frame(13, 0xFF)), kFront);
}

Frame vxlan_tcp(std::uint16_t inner_dst, std::uint8_t inner_class) {
  return FrameBuilder()
      .ethernet(kMacB, kMacA)
      .ipv4(kIpv4A, kIpv4B)
      .udp(51000, flow::kUdpPortVxlan)
      .vxlan(42)
      .ethernet(kMacA, kMacB)
      .vlan(flow::kEtherTypeVlan, 5 << 13 | 7)
      .ipv4(kIpv4B, kIpv4A)
      .traffic_class(inner_class)
      .tcp(40000, inner_dst)
      .build();
}

TEST(Classifier, InnerRulesReadTheTunnelledHeaders) {
  Rule inner_nvme = rule_for(kCritical);
  inner_nvme.header = HeaderLevel::inner;
  inner_nvme.dst_port = {{4420, 4420}};
  Rule inner_pcp = rule_for(kFront);
  inner_pcp.header = HeaderLevel::inner;
  inner_pcp.pcp = {{5, 5}};
  Rule outer_vxlan = rule_for(kBulk);
  outer_vxlan.dst_port = {{flow::kUdpPortVxlan, flow::kUdpPortVxlan}};
  ClassifierSpec spec = spec_with({inner_nvme, inner_pcp});
  spec.default_class = kFront;
  const Classifier classifier(spec);
  EXPECT_EQ(classify(classifier, vxlan_tcp(4420, 0)), kCritical);
  EXPECT_EQ(classify(classifier, vxlan_tcp(80, 0)), kFront);  // inner tag's PCP 5
  // An inner rule never matches an untunnelled frame with the same headers.
  EXPECT_EQ(classify(classifier, tcp4(40000, 4420)), kFront);
  // Outer rules see the tunnel's own headers: UDP to 4789.
  ClassifierSpec outer = spec_with({outer_vxlan, inner_nvme});
  outer.default_class = kFront;
  EXPECT_EQ(classify(Classifier(outer), vxlan_tcp(4420, 0)), kBulk);
  // An inner rule with no field: every tunnelled frame.
  Rule tunnelled = rule_for(kCritical);
  tunnelled.header = HeaderLevel::inner;
  const Classifier any_tunnel(spec_with({tunnelled}));
  EXPECT_EQ(classify(any_tunnel, vxlan_tcp(1, 0)), kCritical);
  EXPECT_EQ(classify(any_tunnel, tcp4(1, 1)), kBulk);
}

TEST(Classifier, GreCarryingIpHasNoInnerTag) {
  Rule inner_dscp = rule_for(kCritical);
  inner_dscp.header = HeaderLevel::inner;
  inner_dscp.dscp = {{46, 46}};
  Rule inner_pcp = rule_for(kFront);
  inner_pcp.header = HeaderLevel::inner;
  inner_pcp.pcp = {{0, 7}};
  const Classifier classifier(spec_with({inner_dscp, inner_pcp}));
  const auto gre = [](std::uint8_t inner_class) {
    return FrameBuilder()
        .ethernet(kMacB, kMacA)
        .vlan(flow::kEtherTypeVlan, 3 << 13)
        .ipv6(kIpv6A, kIpv6B)
        .gre(true, 9)
        .ipv4(kIpv4A, kIpv4B)
        .traffic_class(inner_class)
        .udp(1, 2)
        .build();
  };
  EXPECT_EQ(classify(classifier, gre(46 << 2)), kCritical);
  EXPECT_EQ(classify(classifier, gre(0)), kBulk);  // the outer tag is not the inner's
}

TEST(Classifier, Ipv6ExtensionHeadersAndFragments) {
  Rule udp_port = rule_for(kCritical);
  udp_port.dst_port = {{4791, 4791}};
  Rule udp = rule_for(kFront);
  udp.protocol = {{flow::kIpProtoUdp, flow::kIpProtoUdp}};
  const Classifier classifier(spec_with({udp_port, udp}));
  const Frame chain = FrameBuilder()
                          .ethernet(kMacB, kMacA)
                          .ipv6(kIpv6A, kIpv6B)
                          .ipv6_extension(flow::kIpProtoHopByHop)
                          .ipv6_extension(flow::kIpProtoRouting, 1)
                          .udp(1, 4791)
                          .bth(5)
                          .build();
  EXPECT_EQ(classify(classifier, chain), kCritical);
  // A fragment has its protocol but no ports: the protocol rule takes it.
  const Frame v6_fragment = FrameBuilder()
                                .ethernet(kMacB, kMacA)
                                .ipv6(kIpv6A, kIpv6B)
                                .ipv6_fragment(0, true, 77)
                                .udp(1, 4791)
                                .build();
  EXPECT_EQ(classify(classifier, v6_fragment), kFront);
  const Frame v4_fragment =
      FrameBuilder().ethernet(kMacB, kMacA).ipv4(kIpv4A, kIpv4B, 0x2000).udp(1, 4791).build();
  EXPECT_EQ(classify(classifier, v4_fragment), kFront);
}

TEST(Classifier, TruncatedFramesFallToTheDefaultOrALowerLayerRule) {
  Rule port = rule_for(kCritical);
  port.dst_port = {{4420, 4420}};
  Rule dscp = rule_for(kFront);
  dscp.dscp = {{26, 26}};
  const Classifier classifier(spec_with({port, dscp}));
  const Frame full = FrameBuilder()
                         .ethernet(kMacB, kMacA)
                         .vlan(flow::kEtherTypeVlan, 3 << 13)
                         .ipv4(kIpv4A, kIpv4B)
                         .traffic_class(26 << 2)
                         .tcp(1, 4420)
                         .build();
  for (std::size_t size = 0; size <= full.size(); ++size) {
    const Frame cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size));
    const ClassId id = classify(classifier, cut);
    const std::size_t l3 = 18;
    if (size == full.size()) {
      EXPECT_EQ(id, kCritical);
    } else if (size >= l3 + 20) {
      EXPECT_EQ(id, kFront) << size;  // IP whole, TCP cut: DSCP still matches, ports do not
    } else {
      EXPECT_EQ(id, kBulk) << size;
    }
  }
}

// Random rules over a few values per field (so that they overlap and match) against random field
// values: the compiled tables pick the rule the literal reading picks.
TEST(Classifier, TablesAgreeWithTheRulesReadLiterally) {
  std::mt19937 random(2026);
  const auto pick = [&random](std::uint32_t max) {
    ValueSet values;
    for (unsigned n = 1 + random() % 2; n > 0; --n) {
      const std::uint32_t first = random() % 4 == 0 ? 0 : random() % (max + 1) % 6;
      values.push_back({first, std::min<std::uint32_t>(max, first + random() % 3)});
    }
    if (random() % 5 == 0) values.push_back({max, max});
    return values;
  };
  for (int round = 0; round < 300; ++round) {
    ClassifierSpec spec;
    spec.classes = {{"a"}, {"b"}, {"c"}};
    spec.default_class = 2;
    for (unsigned n = 1 + random() % 12; n > 0; --n) {
      Rule rule = rule_for(static_cast<ClassId>(random() % 2));
      rule.header = random() % 4 == 0 ? HeaderLevel::inner : HeaderLevel::outer;
      if (random() % 3 == 0) rule.pcp = pick(kMaxPcp);
      if (random() % 3 == 0) rule.dscp = pick(kMaxDscp);
      if (random() % 3 == 0) rule.protocol = pick(kMaxProtocol);
      if (random() % 3 == 0) rule.src_port = pick(kMaxPort);
      if (random() % 3 == 0) rule.dst_port = pick(kMaxPort);
      if (random() % 4 == 0) rule.roce = true;
      if (random() % 4 == 0) rule.roce_opcode = pick(kMaxBthOpcode);
      if (random() % 4 == 0) rule.roce_dest_qp = pick(kMaxDestQp);
      if (rule.header == HeaderLevel::inner || !rule.matches_anything()) spec.rules.push_back(rule);
    }
    spec.rules.push_back(rule_for(0));
    spec.rules.back().header = HeaderLevel::inner;
    spec.rules.push_back(rule_for(1));
    spec.rules.back().header = HeaderLevel::inner;
    const Classifier classifier(spec);
    for (int frame = 0; frame < 200; ++frame) {
      FrameFields fields;
      fields.tunnel = random() % 3 == 0;
      for (HeaderFields* level : {&fields.outer, &fields.inner}) {
        if (random() % 4 != 0) level->pcp = static_cast<std::uint8_t>(random() % 8);
        if (random() % 4 != 0) {
          level->dscp = static_cast<std::uint8_t>(random() % 64 % 7);
          level->protocol = static_cast<std::uint16_t>(random() % 7);
          level->has_ports = random() % 4 != 0;
          level->src_port = static_cast<std::uint16_t>(random() % 7);
          level->dst_port = static_cast<std::uint16_t>(random() % 4 == 0 ? 65535 : random() % 7);
          if (random() % 2 == 0) {
            level->roce_opcode = static_cast<std::uint16_t>(random() % 7);
            level->roce_dest_qp = random() % 7;
          }
        }
      }
      const int expected = test::reference_first_rule(spec, fields);
      ASSERT_EQ(classifier.first_rule(fields), expected) << "round " << round;
      ASSERT_EQ(classifier.classify(fields),
                expected < 0 ? spec.default_class : spec.rules[expected].class_id);
    }
  }
}

// The two-level port tables (blocks of 256 ports, one mask for a block without a boundary,
// alike blocks stored once): every one of the 65536 source and destination ports against the
// literal reading, under ranges that start and end inside blocks, on block edges, span many
// blocks, and under a config with a boundary in every block.
TEST(Classifier, PortTablesAgreeWithTheRulesOnEveryPort) {
  std::mt19937 random(65536);
  for (int round = 0; round < 6; ++round) {
    ClassifierSpec spec;
    spec.classes = {{"a"}, {"b"}, {"c"}};
    spec.default_class = 2;
    Rule edges = rule_for(0);
    edges.dst_port = {{255, 256}, {0x1100, 0x11FF}, {4420, 4420}, {65535, 65535}};
    Rule wide = rule_for(1);
    wide.dst_port = {{1000, 40000}};
    wide.src_port = {{0, 0}, {1024, 1024 + 256 * 3 + 7}};
    spec.rules = {edges, wide};
    for (unsigned n = static_cast<unsigned>(round * 10); n > 0; --n) {
      Rule rule = rule_for(static_cast<ClassId>(random() % 2));
      ValueSet& ports = random() % 2 == 0 ? rule.src_port : rule.dst_port;
      for (unsigned k = 1 + random() % 8; k > 0; --k) {
        const std::uint32_t first = random() % (kMaxPort + 1);
        ports.push_back({first, std::min<std::uint32_t>(kMaxPort, first + random() % 700)});
      }
      spec.rules.push_back(rule);
    }
    if (round == 5) {  // a boundary in every block: 256 blocks of their own
      Rule every = rule_for(0);
      for (std::uint32_t block = 0; block < 256; ++block)
        every.src_port.push_back({block * 256 + 17, block * 256 + 17});
      spec.rules.insert(spec.rules.begin(), every);
    }
    const Classifier classifier(spec);
    for (std::uint32_t port = 0; port <= kMaxPort; ++port) {
      FrameFields fields;
      fields.outer.protocol = flow::kIpProtoTcp;
      fields.outer.has_ports = true;
      fields.outer.dst_port = static_cast<std::uint16_t>(port);
      fields.outer.src_port = static_cast<std::uint16_t>(random());
      ASSERT_EQ(classifier.first_rule(fields), test::reference_first_rule(spec, fields))
          << "round " << round << ", dst port " << port;
      std::swap(fields.outer.src_port, fields.outer.dst_port);
      ASSERT_EQ(classifier.first_rule(fields), test::reference_first_rule(spec, fields))
          << "round " << round << ", src port " << port;
    }
  }
}

TEST(Classifier, RejectsAnInvalidSpec) {
  ClassifierSpec spec = spec_with({});
  spec.default_class = 3;
  EXPECT_THROW(Classifier{spec}, std::invalid_argument);
}

}  // namespace
}  // namespace braid::classify
