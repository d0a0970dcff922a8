// Whole BFD frames: micro-BFD (RFC 7130) and single-hop (RFC 5881) over IPv4 and IPv6, built and
// parsed, and every header check the parser applies.
#include "bfd/frame.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/inet_checksum.hpp"

namespace braid::bfd {
namespace {

constexpr MacAddress kOurMac{0x02, 0x00, 0x00, 0x00, 0x0a, 0x01};
constexpr MacAddress kPartnerMac{0x02, 0x00, 0x00, 0x00, 0x0b, 0x01};
const IpAddress kOurIp4 = IpAddress::v4(0xc0a80001);      // 192.168.0.1
const IpAddress kPartnerIp4 = IpAddress::v4(0xc0a80002);  // 192.168.0.2
const IpAddress kOurIp6 = IpAddress::v6({0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
const IpAddress kPartnerIp6 = IpAddress::v6({0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
constexpr std::size_t kL3 = kEthernetHeaderLen;

ControlPacket packet() {
  ControlPacket packet;
  packet.state = State::kInit;
  packet.detect_mult = 3;
  packet.my_discriminator = 0x0b0b0b0b;
  packet.your_discriminator = 0x0a0a0a0a;
  packet.desired_min_tx_us = 1'000'000;
  packet.required_min_rx_us = 10'000;
  return packet;
}

// What the partner sends us.
FrameSpec spec(Encapsulation encapsulation, bool ipv6) {
  FrameSpec spec;
  spec.encapsulation = encapsulation;
  spec.source_mac = kPartnerMac;
  spec.destination_mac = kOurMac;
  spec.source_ip = ipv6 ? kPartnerIp6 : kPartnerIp4;
  spec.destination_ip = ipv6 ? kOurIp6 : kOurIp4;
  spec.source_port = source_port_for(0x0b0b0b0b);
  return spec;
}

ReceiveFilter filter(Encapsulation encapsulation, bool ipv6) {
  return {encapsulation, kOurMac, ipv6 ? kOurIp6 : kOurIp4};
}

std::vector<std::uint8_t> frame_bytes(Encapsulation encapsulation, bool ipv6) {
  const Frame frame = build_frame(spec(encapsulation, ipv6), packet());
  return {frame.bytes.begin(), frame.bytes.begin() + static_cast<long>(frame.len)};
}

std::vector<std::uint8_t> micro4() {
  return frame_bytes(Encapsulation::kMicroBfd, false);
}
std::vector<std::uint8_t> micro6() {
  return frame_bytes(Encapsulation::kMicroBfd, true);
}

RejectReason parse(const std::vector<std::uint8_t>& frame,
                   const ReceiveFilter& with = filter(Encapsulation::kMicroBfd, false)) {
  return parse_frame(ByteSpan(frame), with).reason;
}

MacAddress mac_at(const std::vector<std::uint8_t>& frame, std::size_t offset) {
  MacAddress mac{};
  for (std::size_t i = 0; i < mac.size(); ++i)
    mac[i] = frame.at(offset + i);
  return mac;
}

// After editing an IPv4 header field, so that the check under test is the one that fails.
void fix_ip_checksum(std::vector<std::uint8_t>& frame, std::size_t l3 = kL3) {
  const MutableByteSpan ip = MutableByteSpan(frame).subspan(l3, kIpv4HeaderLen);
  store_be16(ip, 10, 0);
  store_be16(ip, 10, fold_checksum(add_checksum(0, ip)));
}

TEST(BfdFrame, MicroBfdIpv4IsBuiltToRfc7130) {
  const auto frame = micro4();
  ASSERT_EQ(frame.size(), 66u);  // 14 + 20 + 8 + 24
  EXPECT_EQ(mac_at(frame, 0), kMicroBfdMac);
  EXPECT_EQ(load_be16(ByteSpan(frame), 12), kEtherTypeIpv4);
  EXPECT_EQ(frame[kL3], 0x45);
  EXPECT_EQ(frame[kL3 + 1], kTrafficClassCs6);
  EXPECT_EQ(frame[kL3 + 8], 255);  // TTL
  EXPECT_EQ(frame[kL3 + 9], kIpProtoUdp);
  EXPECT_EQ(load_be16(ByteSpan(frame), kL3 + 22), kMicroBfdPort);
  const std::uint16_t source_port = load_be16(ByteSpan(frame), kL3 + 20);
  EXPECT_GE(source_port, kMinSourcePort);
  EXPECT_EQ(source_port, source_port_for(0x0b0b0b0b));
}

TEST(BfdFrame, MicroBfdIpv4RoundTrips) {
  const ParsedFrame parsed =
      parse_frame(ByteSpan(micro4()), filter(Encapsulation::kMicroBfd, false));
  ASSERT_EQ(parsed.reason, RejectReason::kNone) << to_string(parsed.reason);
  EXPECT_EQ(parsed.packet, packet());
  EXPECT_EQ(parsed.source_mac, kPartnerMac);
  EXPECT_EQ(parsed.destination_mac, kMicroBfdMac);
  EXPECT_EQ(parsed.source_ip, kPartnerIp4);
  EXPECT_EQ(parsed.destination_ip, kOurIp4);
  EXPECT_EQ(parsed.source_port, source_port_for(0x0b0b0b0b));
  EXPECT_FALSE(parsed.vlan_id.has_value());
}

TEST(BfdFrame, MicroBfdIpv6RoundTrips) {
  const auto frame = micro6();
  ASSERT_EQ(frame.size(), 86u);  // 14 + 40 + 8 + 24
  EXPECT_EQ(load_be16(ByteSpan(frame), 12), kEtherTypeIpv6);
  EXPECT_EQ(frame[kL3 + 6], kIpProtoUdp);
  EXPECT_EQ(frame[kL3 + 7], 255);  // Hop Limit
  const ParsedFrame parsed = parse_frame(ByteSpan(frame), filter(Encapsulation::kMicroBfd, true));
  ASSERT_EQ(parsed.reason, RejectReason::kNone) << to_string(parsed.reason);
  EXPECT_EQ(parsed.packet, packet());
  EXPECT_EQ(parsed.source_ip, kPartnerIp6);
  EXPECT_EQ(parsed.destination_ip, kOurIp6);
}

TEST(BfdFrame, SingleHopUsesPort3784AndUnicastMac) {
  for (bool ipv6 : {false, true}) {
    const auto frame = frame_bytes(Encapsulation::kSingleHop, ipv6);
    EXPECT_EQ(mac_at(frame, 0), kOurMac);
    const std::size_t l4 = kL3 + (ipv6 ? kIpv6HeaderLen : kIpv4HeaderLen);
    EXPECT_EQ(load_be16(ByteSpan(frame), l4 + 2), kSingleHopPort);
    EXPECT_EQ(parse(frame, filter(Encapsulation::kSingleHop, ipv6)), RejectReason::kNone);
    // The other encapsulation's port is not ours.
    EXPECT_EQ(parse(frame, filter(Encapsulation::kMicroBfd, ipv6)), RejectReason::kBadUdpPort);
  }
  EXPECT_EQ(parse(micro4(), filter(Encapsulation::kSingleHop, false)),
            RejectReason::kBadDestinationMac);
}

TEST(BfdFrame, DestinationMacIsChecked) {
  // Micro-BFD takes the dedicated MAC and our own; anything else is for someone else.
  auto frame = micro4();
  std::copy(kOurMac.begin(), kOurMac.end(), frame.begin());
  EXPECT_EQ(parse(frame), RejectReason::kNone);
  frame[5] ^= 0xff;
  EXPECT_EQ(parse(frame), RejectReason::kBadDestinationMac);
  // A filter without our MAC takes any.
  EXPECT_EQ(parse(frame, {Encapsulation::kMicroBfd, {}, std::nullopt}), RejectReason::kNone);
}

TEST(BfdFrame, DestinationIpIsChecked) {
  EXPECT_EQ(parse(micro4(), {Encapsulation::kMicroBfd, kOurMac, kPartnerIp4}),
            RejectReason::kBadDestinationIp);
  EXPECT_EQ(parse(micro4(), {Encapsulation::kMicroBfd, kOurMac, kOurIp6}),
            RejectReason::kBadDestinationIp);
  EXPECT_EQ(parse(micro4(), {Encapsulation::kMicroBfd, kOurMac, std::nullopt}),
            RejectReason::kNone);
}

TEST(BfdFrame, OneVlanTagIsAccepted) {
  for (bool ipv6 : {false, true}) {
    auto frame = frame_bytes(Encapsulation::kMicroBfd, ipv6);
    frame.insert(frame.begin() + 12, {0x81, 0x00, 0x20, 0x64});  // PCP 1, VID 100
    const ParsedFrame parsed = parse_frame(ByteSpan(frame), filter(Encapsulation::kMicroBfd, ipv6));
    ASSERT_EQ(parsed.reason, RejectReason::kNone) << to_string(parsed.reason);
    EXPECT_EQ(parsed.vlan_id, 100);
    EXPECT_EQ(parsed.packet, packet());
  }
}

TEST(BfdFrame, EthernetPaddingIsIgnored) {
  auto frame = micro4();
  frame.resize(frame.size() + 10, 0);
  EXPECT_EQ(parse(frame), RejectReason::kNone);
}

TEST(BfdFrame, EveryTruncationIsRefused) {
  for (bool ipv6 : {false, true}) {
    const auto frame = frame_bytes(Encapsulation::kMicroBfd, ipv6);
    for (std::size_t size = 0; size < frame.size(); ++size) {
      const std::vector<std::uint8_t> prefix(frame.begin(),
                                             frame.begin() + static_cast<long>(size));
      EXPECT_NE(parse(prefix, filter(Encapsulation::kMicroBfd, ipv6)), RejectReason::kNone) << size;
    }
  }
  EXPECT_EQ(parse({}), RejectReason::kFrameTooShort);
  const auto frame = micro4();
  EXPECT_EQ(parse(std::vector<std::uint8_t>(frame.begin(), frame.begin() + 30)),
            RejectReason::kFrameTooShort);
}

TEST(BfdFrame, OtherEthertypesAreRefused) {
  auto frame = micro4();
  store_be16(MutableByteSpan(frame), 12, 0x0806);  // ARP
  EXPECT_EQ(parse(frame), RejectReason::kBadEthertype);
}

TEST(BfdFrame, BadIpHeadersAreRefused) {
  auto frame = micro4();
  frame[kL3] = 0x44;  // IHL 4
  fix_ip_checksum(frame);
  EXPECT_EQ(parse(frame), RejectReason::kBadIpHeader);
  frame = micro4();
  frame[kL3] = 0x65;  // version 6 under the IPv4 ethertype
  fix_ip_checksum(frame);
  EXPECT_EQ(parse(frame), RejectReason::kBadIpHeader);
  frame = micro4();
  store_be16(MutableByteSpan(frame), kL3 + 2, 100);  // total length past the frame
  fix_ip_checksum(frame);
  EXPECT_EQ(parse(frame), RejectReason::kBadIpHeader);
  frame = micro6();
  store_be16(MutableByteSpan(frame), kL3 + 4, 40);  // payload length past the frame
  EXPECT_EQ(parse(frame, filter(Encapsulation::kMicroBfd, true)), RejectReason::kBadIpHeader);
}

TEST(BfdFrame, BadIpv4ChecksumIsRefused) {
  auto frame = micro4();
  frame[kL3 + 5] ^= 0x01;  // identification: covered by the header checksum only
  EXPECT_EQ(parse(frame), RejectReason::kBadIpChecksum);
  frame = micro4();
  frame[kL3 + 11] ^= 0x80;  // the checksum itself
  EXPECT_EQ(parse(frame), RejectReason::kBadIpChecksum);
}

TEST(BfdFrame, FragmentsAreRefused) {
  auto frame = micro4();
  store_be16(MutableByteSpan(frame), kL3 + 6, 0x2000);  // More Fragments
  fix_ip_checksum(frame);
  EXPECT_EQ(parse(frame), RejectReason::kIpFragment);
}

TEST(BfdFrame, TtlOtherThan255IsRefused) {
  // RFC 5881 5: a packet that crossed a router (TTL 254) did not come from the neighbour.
  auto frame = micro4();
  frame[kL3 + 8] = 254;
  fix_ip_checksum(frame);
  EXPECT_EQ(parse(frame), RejectReason::kBadTtl);
  frame = micro6();
  frame[kL3 + 7] = 1;
  EXPECT_EQ(parse(frame, filter(Encapsulation::kMicroBfd, true)), RejectReason::kBadTtl);
}

TEST(BfdFrame, OtherProtocolsAreRefused) {
  auto frame = micro4();
  frame[kL3 + 9] = 6;  // TCP
  fix_ip_checksum(frame);
  EXPECT_EQ(parse(frame), RejectReason::kNotUdp);
  frame = micro6();
  frame[kL3 + 6] = 0;  // a Hop-by-Hop Options header
  EXPECT_EQ(parse(frame, filter(Encapsulation::kMicroBfd, true)), RejectReason::kNotUdp);
}

TEST(BfdFrame, BadUdpLengthIsRefused) {
  const std::size_t udp = kL3 + kIpv4HeaderLen;
  auto frame = micro4();
  store_be16(MutableByteSpan(frame), udp + 4, 7);
  EXPECT_EQ(parse(frame), RejectReason::kBadUdpLength);
  store_be16(MutableByteSpan(frame), udp + 4, 33);  // one past the IP payload
  EXPECT_EQ(parse(frame), RejectReason::kBadUdpLength);
}

TEST(BfdFrame, BadUdpChecksumIsRefused) {
  for (bool ipv6 : {false, true}) {
    auto frame = frame_bytes(Encapsulation::kMicroBfd, ipv6);
    frame.back() ^= 0x01;  // Required Min Echo RX, covered by the UDP checksum only
    EXPECT_EQ(parse(frame, filter(Encapsulation::kMicroBfd, ipv6)), RejectReason::kBadUdpChecksum);
  }
}

TEST(BfdFrame, ZeroUdpChecksumOnlyOverIpv4) {
  const std::size_t checksum4 = kL3 + kIpv4HeaderLen + 6;
  auto frame = micro4();
  store_be16(MutableByteSpan(frame), checksum4, 0);  // RFC 768: none computed
  EXPECT_EQ(parse(frame), RejectReason::kNone);
  frame = micro6();
  store_be16(MutableByteSpan(frame), kL3 + kIpv6HeaderLen + 6, 0);  // RFC 8200 8.1: mandatory
  EXPECT_EQ(parse(frame, filter(Encapsulation::kMicroBfd, true)), RejectReason::kBadUdpChecksum);
}

TEST(BfdFrame, PacketRejectionsComeThrough) {
  ControlPacket bad = packet();
  bad.detect_mult = 0;
  const Frame frame = build_frame(spec(Encapsulation::kMicroBfd, false), bad);
  EXPECT_EQ(parse_frame(frame.span(), filter(Encapsulation::kMicroBfd, false)).reason,
            RejectReason::kZeroDetectMult);
}

TEST(BfdFrame, SourcePortsStayInTheDynamicRange) {
  for (std::uint32_t discriminator : {1u, 16383u, 16384u, 0xffffffffu}) {
    const std::uint16_t port = source_port_for(discriminator);
    EXPECT_GE(port, kMinSourcePort);
    EXPECT_LE(port, kMaxSourcePort);
  }
  EXPECT_NE(source_port_for(1), source_port_for(2));
}

TEST(BfdFrame, SpecsThatCannotBeSentAreNamed) {
  EXPECT_STREQ(check_frame_spec(spec(Encapsulation::kMicroBfd, false)), "");
  FrameSpec mixed = spec(Encapsulation::kMicroBfd, false);
  mixed.destination_ip = kOurIp6;
  EXPECT_STREQ(check_frame_spec(mixed), "source and destination IP addresses differ in family");
  FrameSpec low_port = spec(Encapsulation::kMicroBfd, false);
  low_port.source_port = 3784;
  EXPECT_STRNE(check_frame_spec(low_port), "");
  FrameSpec no_mac = spec(Encapsulation::kSingleHop, false);
  no_mac.destination_mac = {};
  EXPECT_STREQ(check_frame_spec(no_mac), "single-hop BFD needs the partner's MAC");
}

}  // namespace
}  // namespace braid::bfd
