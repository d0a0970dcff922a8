// The LLDPDU codec (IEEE 802.1AB-2016 8): golden bytes written from the standard, round trips,
// and every reason the decoder refuses a frame for.
#include "lldp/lldpdu.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace braid::lldp {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr MacAddress kSourceMac{0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

Bytes text(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& part : parts)
    out.insert(out.end(), part.begin(), part.end());
  return out;
}

// The Ethernet header to the nearest-bridge address.
const Bytes kEthernet = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02,
                         0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xcc};
// Chassis ID subtype 4 (MAC), Port ID subtype 5 (interface name "eth0"), TTL 120.
const Bytes kMandatory = {0x02, 0x07, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,  // chassis
                          0x04, 0x05, 0x05, 'e',  't',  'h',  '0',               // port
                          0x06, 0x02, 0x00, 0x78};                               // ttl
const Bytes kEnd = {0x00, 0x00};

Lldpdu typical() {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_mac(kSourceMac);
  lldpdu.port_id = port_interface_name("eth0");
  lldpdu.ttl_s = 120;
  lldpdu.port_description = "uplink member 0";
  lldpdu.system_name = "host1";
  lldpdu.system_description = "braid";
  lldpdu.capabilities = Capabilities{kCapabilityBridge | kCapabilityRouter, kCapabilityRouter};
  lldpdu.management_addresses.push_back(
      {.family = kAddressFamilyIpv4, .address = {10, 0, 0, 1}, .interface_number = 2});
  lldpdu.org_specific.push_back(encode_link_aggregation({true, true, 5}));
  return lldpdu;
}

// What lldpd sends for an interface in a bond, TLV by TLV from 802.1AB-2016 8.5 and 802.3
// 79.3.3 (type << 9 | length, then the information string).
const Bytes kTypicalFrame = cat({
    kEthernet,
    kMandatory,
    {0x08, 0x0f},
    text("uplink member 0"),  // Port Description
    {0x0a, 0x05},
    text("host1"),  // System Name
    {0x0c, 0x05},
    text("braid"),                         // System Description
    {0x0e, 0x04, 0x00, 0x14, 0x00, 0x10},  // System Capabilities: bridge, router / router
    // Management Address: length 5 (subtype + 4), IPv4 10.0.0.1, ifIndex 2, no OID.
    {0x10, 0x0c, 0x05, 0x01, 10, 0, 0, 1, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00},
    // 802.3 link aggregation: capable and enabled, aggregated port id 5.
    {0xfe, 0x09, 0x00, 0x12, 0x0f, 0x03, 0x03, 0x00, 0x00, 0x00, 0x05},
    kEnd,
});

TEST(LldpduCodec, GoldenFrameFromTheStandard) {
  EXPECT_EQ(build_frame(kSourceMac, typical()), kTypicalFrame);
  const ParsedFrame parsed = parse_frame(kTypicalFrame);
  ASSERT_EQ(to_string(parsed.reason), std::string("none"));
  EXPECT_EQ(parsed.lldpdu, typical());
  EXPECT_EQ(parsed.source_mac, kSourceMac);
  EXPECT_TRUE(parsed.end_seen);
  EXPECT_FALSE(parsed.vlan_id);
  const auto aggregation = link_aggregation(parsed.lldpdu);
  ASSERT_TRUE(aggregation);
  EXPECT_EQ(*aggregation, (LinkAggregation{true, true, 5}));
}

TEST(LldpduCodec, ShortFramesArePaddedToTheEthernetMinimum) {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_local("c");
  lldpdu.port_id = port_local("p");
  lldpdu.ttl_s = 0;
  const Bytes frame = build_frame(kSourceMac, lldpdu);
  EXPECT_EQ(frame.size(), kMinFrameLen);
  const ParsedFrame parsed = parse_frame(frame);
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  EXPECT_EQ(parsed.lldpdu, lldpdu);
}

TEST(LldpduCodec, RoundTripsEveryField) {
  Lldpdu lldpdu = typical();
  lldpdu.chassis_id = Id::text(static_cast<std::uint8_t>(ChassisIdSubtype::kNetworkAddress),
                               std::string("\x01\x0a\x00\x00\x09", 5));
  lldpdu.port_id = port_mac({0x02, 0, 0, 0, 0, 0x42});
  lldpdu.ttl_s = 65535;
  lldpdu.system_description = std::string(255, 'd');
  lldpdu.port_description = "";  // 0 octets is allowed (8.5.5)
  lldpdu.management_addresses.push_back(
      {.family = kAddressFamilyIpv6,
       .address = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
       .interface_subtype = 3,
       .interface_number = 0xdeadbeef,
       .oid = {0x2b, 0x06, 0x01}});
  lldpdu.org_specific.push_back({.oui = kOuiIeee8021, .subtype = 1, .info = {0x00, 0x64}});
  lldpdu.org_specific.push_back({.oui = {0xaa, 0xbb, 0xcc}, .subtype = 9, .info = {}});
  ASSERT_EQ(check_lldpdu(lldpdu), "");
  const ParsedFrame parsed = parse_frame(build_frame(kSourceMac, lldpdu));
  ASSERT_EQ(to_string(parsed.reason), std::string("none"));
  EXPECT_EQ(parsed.lldpdu, lldpdu);
  EXPECT_EQ(describe(parsed.lldpdu.chassis_id, true), "ip 10.0.0.9");
  EXPECT_EQ(describe(parsed.lldpdu.port_id, false), "mac 02:00:00:00:00:42");
}

TEST(LldpduCodec, VlanTaggedFrame) {
  Bytes frame = kTypicalFrame;
  frame.insert(frame.begin() + 12, {0x81, 0x00, 0x20, 0x64});
  const ParsedFrame parsed = parse_frame(frame);
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  EXPECT_EQ(parsed.vlan_id, 0x064);
  EXPECT_EQ(parsed.lldpdu, typical());
}

TEST(LldpduCodec, LenientWhereSendersDiffer) {
  // No End: accepted, and said so.
  ParsedFrame parsed = parse_frame(cat({kEthernet, kMandatory}));
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  EXPECT_FALSE(parsed.end_seen);
  // No End, one zero byte of padding.
  parsed = parse_frame(cat({kEthernet, kMandatory, {0x00}}));
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  // Anything after End is padding.
  parsed = parse_frame(cat({kEthernet, kMandatory, kEnd, {0xff, 0xff, 0x12}}));
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  EXPECT_TRUE(parsed.end_seen);
  // A reserved TLV type is skipped and counted; a second System Name is counted, the first kept.
  parsed = parse_frame(cat({kEthernet,
                            kMandatory,
                            {0x12, 0x02, 0xab, 0xcd},
                            {0x0a, 0x01, 'a'},
                            {0x0a, 0x01, 'b'},
                            kEnd}));
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  EXPECT_EQ(parsed.unrecognised_tlvs, 1u);
  EXPECT_EQ(parsed.repeated_tlvs, 1u);
  EXPECT_EQ(parsed.lldpdu.system_name, "a");
  // A link aggregation TLV of the wrong length is kept raw, not decoded.
  parsed = parse_frame(cat({kEthernet, kMandatory, {0xfe, 0x05, 0x00, 0x12, 0x0f, 0x03, 0x03}}));
  ASSERT_EQ(parsed.reason, RejectReason::kNone);
  EXPECT_EQ(parsed.lldpdu.org_specific.size(), 1u);
  EXPECT_FALSE(link_aggregation(parsed.lldpdu));
}

struct RejectCase {
  const char* what;
  Bytes frame;
  RejectReason reason;
};

TEST(LldpduCodec, EveryRejectReason) {
  const Bytes chassis(kMandatory.begin(), kMandatory.begin() + 9);
  const Bytes port(kMandatory.begin() + 9, kMandatory.begin() + 16);
  const Bytes ttl(kMandatory.begin() + 16, kMandatory.end());
  Bytes wrong_mac = kTypicalFrame;
  wrong_mac[5] = 0x03;  // nearest non-TPMR bridge: another agent's address
  Bytes wrong_type = kTypicalFrame;
  wrong_type[13] = 0xcd;
  const std::vector<RejectCase> cases = {
      {"13 octets", Bytes(kEthernet.begin(), kEthernet.end() - 1), RejectReason::kFrameTooShort},
      {"a tag and nothing else",
       {0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0},
       RejectReason::kFrameTooShort},
      {"01-80-C2-00-00-03", wrong_mac, RejectReason::kBadDestinationMac},
      {"ethertype 0x88cd", wrong_type, RejectReason::kBadEthertype},
      {"one stray octet", cat({kEthernet, kMandatory, {0x0a}}), RejectReason::kTlvHeaderTruncated},
      {"TLV past the frame", cat({kEthernet, kMandatory, {0x0a, 0x09, 'a'}}),
       RejectReason::kTlvPastFrame},
      {"empty LLDPDU", kEthernet, RejectReason::kMissingChassisId},
      {"Port ID first", cat({kEthernet, port, chassis, ttl, kEnd}),
       RejectReason::kMissingChassisId},
      {"End after Chassis ID", cat({kEthernet, chassis, kEnd}), RejectReason::kMissingPortId},
      {"TTL before Port ID", cat({kEthernet, chassis, ttl, port, kEnd}),
       RejectReason::kMissingPortId},
      {"no TTL", cat({kEthernet, chassis, port, kEnd}), RejectReason::kMissingTtl},
      {"frame ends before TTL", cat({kEthernet, chassis, port}), RejectReason::kMissingTtl},
      {"second Chassis ID", cat({kEthernet, kMandatory, chassis, kEnd}),
       RejectReason::kDuplicateMandatoryTlv},
      {"second Port ID", cat({kEthernet, kMandatory, port, kEnd}),
       RejectReason::kDuplicateMandatoryTlv},
      {"second TTL", cat({kEthernet, kMandatory, ttl, kEnd}), RejectReason::kDuplicateMandatoryTlv},
      {"Chassis ID subtype only", cat({kEthernet, {0x02, 0x01, 0x04}, port, ttl}),
       RejectReason::kBadChassisIdLength},
      {"MAC chassis of 5 octets", cat({kEthernet, {0x02, 0x06, 0x04, 1, 2, 3, 4, 5}, port, ttl}),
       RejectReason::kBadChassisIdLength},
      {"Chassis ID of 256 octets", cat({kEthernet, {0x03, 0x01, 0x07}, Bytes(256, 'c'), port, ttl}),
       RejectReason::kBadChassisIdLength},
      {"Chassis ID subtype 0", cat({kEthernet, {0x02, 0x02, 0x00, 'c'}, port, ttl}),
       RejectReason::kBadChassisIdSubtype},
      {"Chassis ID subtype 8", cat({kEthernet, {0x02, 0x02, 0x08, 'c'}, port, ttl}),
       RejectReason::kBadChassisIdSubtype},
      {"empty Port ID", cat({kEthernet, chassis, {0x04, 0x00}, ttl}),
       RejectReason::kBadPortIdLength},
      {"MAC port of 7 octets",
       cat({kEthernet, chassis, {0x04, 0x08, 0x03, 1, 2, 3, 4, 5, 6, 7}, ttl}),
       RejectReason::kBadPortIdLength},
      {"Port ID subtype 0", cat({kEthernet, chassis, {0x04, 0x02, 0x00, 'p'}, ttl}),
       RejectReason::kBadPortIdSubtype},
      {"TTL of 1 octet", cat({kEthernet, chassis, port, {0x06, 0x01, 0x78}}),
       RejectReason::kBadTtlLength},
      {"TTL of 3 octets", cat({kEthernet, chassis, port, {0x06, 0x03, 0x00, 0x78, 0x00}}),
       RejectReason::kBadTtlLength},
      {"End of length 1", cat({kEthernet, kMandatory, {0x00, 0x01, 0x00}}),
       RejectReason::kBadEndLength},
      {"System Name of 256 octets", cat({kEthernet, kMandatory, {0x0b, 0x00}, Bytes(256, 'n')}),
       RejectReason::kBadStringLength},
      {"Port Description of 300", cat({kEthernet, kMandatory, {0x09, 0x2c}, Bytes(300, 'd')}),
       RejectReason::kBadStringLength},
      {"capabilities of 2", cat({kEthernet, kMandatory, {0x0e, 0x02, 0x00, 0x14}}),
       RejectReason::kBadCapabilitiesLength},
      {"management TLV of 8",
       cat({kEthernet, kMandatory, {0x10, 0x08, 0x02, 0x01, 10, 2, 0, 0, 0, 0}}),
       RejectReason::kBadManagementAddressLength},
      {"address string length past the TLV",
       cat({kEthernet, kMandatory, {0x10, 0x0c, 0x0a, 0x01, 10, 0, 0, 1, 2, 0, 0, 0, 2, 0}}),
       RejectReason::kBadManagementAddressLength},
      {"address string length 1",
       cat({kEthernet, kMandatory, {0x10, 0x09, 0x01, 0x01, 2, 0, 0, 0, 2, 0, 0}}),
       RejectReason::kBadManagementAddressLength},
      {"OID length past the TLV",
       cat({kEthernet, kMandatory, {0x10, 0x0c, 0x05, 0x01, 10, 0, 0, 1, 2, 0, 0, 0, 2, 0x01}}),
       RejectReason::kBadManagementAddressLength},
      {"organizationally specific of 3",
       cat({kEthernet, kMandatory, {0xfe, 0x03, 0x00, 0x12, 0x0f}}),
       RejectReason::kBadOrgSpecificLength},
  };
  std::set<RejectReason> covered;
  for (const RejectCase& c : cases) {
    EXPECT_EQ(to_string(parse_frame(c.frame).reason), std::string(to_string(c.reason))) << c.what;
    covered.insert(c.reason);
  }
  // Every reason but kNone has a case.
  EXPECT_EQ(covered.size(), kRejectReasonCount - 1);
  for (std::size_t i = 0; i <= kRejectReasonCount; ++i) {
    const std::string name = to_string(static_cast<RejectReason>(i));
    EXPECT_EQ(name == "unknown", i == kRejectReasonCount) << i;
  }
}

TEST(LldpduCodec, CheckRefusesWhatCannotBeSent) {
  Lldpdu lldpdu = typical();
  EXPECT_EQ(check_lldpdu(lldpdu), "");
  lldpdu.system_name = std::string(256, 'n');
  EXPECT_EQ(check_lldpdu(lldpdu), "system_name is longer than 255 octets");
  lldpdu = typical();
  lldpdu.chassis_id = Id::text(4, "short");
  EXPECT_EQ(check_lldpdu(lldpdu), "chassis_id of the MAC address subtype must be 6 octets");
  lldpdu = typical();
  lldpdu.port_id = port_local("");
  EXPECT_EQ(check_lldpdu(lldpdu), "port_id must be 1-255 octets");
  lldpdu = typical();
  lldpdu.port_id.subtype = 9;
  EXPECT_EQ(check_lldpdu(lldpdu), "port_id has a reserved subtype");
  lldpdu = typical();
  lldpdu.management_addresses[0].address.clear();
  EXPECT_EQ(check_lldpdu(lldpdu), "a management address must be 1-31 octets");
  lldpdu = typical();
  for (int i = 0; i < 4; ++i)
    lldpdu.org_specific.push_back({.oui = {1, 2, 3}, .subtype = 1, .info = Bytes(400, 0)});
  EXPECT_EQ(check_lldpdu(lldpdu), "the LLDPDU is longer than 1500 octets");
}

TEST(LldpduCodec, DescribesIds) {
  EXPECT_EQ(describe(chassis_mac(kSourceMac), true), "mac 02:00:00:00:00:01");
  EXPECT_EQ(describe(port_interface_name("swp1"), false), "ifname swp1");
  EXPECT_EQ(describe(chassis_local("rack4"), true), "local rack4");
  EXPECT_EQ(describe(Id::text(1, "fabric"), true), "subtype 1 fabric");
  EXPECT_EQ(describe(Id{7, {0x00, 0xff}}, false), "subtype 7 00ff");
}

}  // namespace
}  // namespace braid::lldp
