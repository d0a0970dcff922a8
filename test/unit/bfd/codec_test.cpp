// The Control packet codec (RFC 5880 4.1) against hand-built bytes, and every check of 6.8.6
// that the decoder applies.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bfd/control_packet.hpp"

namespace braid::bfd {
namespace {

// Version 1, Diag 3; State Up, P and C; Detect Mult 3; Length 24; then the five 32-bit fields.
const std::vector<std::uint8_t> kHandBuilt = {
    0x23, 0xe8, 0x03, 0x18,  // Vers|Diag, Sta|P|F|C|A|D|M, Detect Mult, Length
    0x11, 0x22, 0x33, 0x44,  // My Discriminator
    0x55, 0x66, 0x77, 0x88,  // Your Discriminator
    0x00, 0x00, 0x27, 0x10,  // Desired Min TX Interval: 10000 us
    0x00, 0x00, 0xc3, 0x50,  // Required Min RX Interval: 50000 us
    0x00, 0x00, 0x00, 0x00,  // Required Min Echo RX Interval
};

ControlPacket hand_built_packet() {
  ControlPacket packet;
  packet.diag = Diag::kNeighborSignaledSessionDown;
  packet.state = State::kUp;
  packet.poll = true;
  packet.control_plane_independent = true;
  packet.detect_mult = 3;
  packet.my_discriminator = 0x11223344;
  packet.your_discriminator = 0x55667788;
  packet.desired_min_tx_us = 10'000;
  packet.required_min_rx_us = 50'000;
  return packet;
}

// A packet the decoder accepts, as bytes, for the tests to break one field at a time.
std::vector<std::uint8_t> valid_bytes() {
  const ControlPacketBytes bytes = encode_control_packet(hand_built_packet());
  return {bytes.begin(), bytes.end()};
}

RejectReason decode(const std::vector<std::uint8_t>& bytes) {
  ControlPacket packet;
  return decode_control_packet(ByteSpan(bytes), packet);
}

TEST(BfdCodec, EncodesTheRfcLayout) {
  const ControlPacketBytes bytes = encode_control_packet(hand_built_packet());
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), kHandBuilt);
}

TEST(BfdCodec, DecodesTheRfcLayout) {
  ControlPacket packet;
  ASSERT_EQ(decode_control_packet(ByteSpan(kHandBuilt), packet), RejectReason::kNone);
  EXPECT_EQ(packet, hand_built_packet());
}

TEST(BfdCodec, EveryStateAndFlagRoundTrips) {
  for (unsigned bits = 0; bits < 64; ++bits) {
    ControlPacket packet = hand_built_packet();
    packet.state = static_cast<State>(bits & 3);
    packet.poll = (bits & 4) != 0;
    packet.final = (bits & 8) != 0;
    packet.control_plane_independent = (bits & 16) != 0;
    packet.demand = (bits & 32) != 0;
    packet.diag = static_cast<Diag>(bits % 32);  // reserved codes 9-31 travel as they are
    packet.required_min_echo_rx_us = bits * 1000;
    const ControlPacketBytes bytes = encode_control_packet(packet);
    ControlPacket decoded;
    ASSERT_EQ(decode_control_packet(ByteSpan(bytes), decoded), RejectReason::kNone) << bits;
    EXPECT_EQ(decoded, packet) << bits;
  }
}

TEST(BfdCodec, OctetsAfterLengthAreIgnored) {
  auto bytes = valid_bytes();
  bytes.insert(bytes.end(), {0xaa, 0xbb, 0xcc, 0xdd});
  EXPECT_EQ(decode(bytes), RejectReason::kNone);
  bytes[3] = 28;  // a Length covering them is no error either
  EXPECT_EQ(decode(bytes), RejectReason::kNone);
}

TEST(BfdCodec, ShortPayloadIsRefused) {
  auto bytes = valid_bytes();
  for (std::size_t size = 0; size < kControlPacketLen; ++size) {
    const std::vector<std::uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(size));
    EXPECT_EQ(decode(prefix), RejectReason::kPacketTooShort) << size;
  }
}

TEST(BfdCodec, VersionOtherThanOneIsRefused) {
  for (std::uint8_t version : {0, 2, 7}) {
    auto bytes = valid_bytes();
    bytes[0] = static_cast<std::uint8_t>((version << 5) | (bytes[0] & 0x1f));
    EXPECT_EQ(decode(bytes), RejectReason::kBadVersion) << int{version};
  }
}

TEST(BfdCodec, LengthBelowMinimumIsRefused) {
  auto bytes = valid_bytes();
  bytes[3] = 23;
  EXPECT_EQ(decode(bytes), RejectReason::kBadLength);
  // With the A bit the minimum is 26 (the Auth Type and Auth Len octets).
  bytes = valid_bytes();
  bytes[1] |= 0x04;
  bytes.insert(bytes.end(), {0x01, 0x02});
  bytes[3] = 25;
  EXPECT_EQ(decode(bytes), RejectReason::kBadLength);
}

TEST(BfdCodec, LengthPastPayloadIsRefused) {
  auto bytes = valid_bytes();
  bytes[3] = 25;
  EXPECT_EQ(decode(bytes), RejectReason::kLengthPastPayload);
}

TEST(BfdCodec, ZeroDetectMultIsRefused) {
  auto bytes = valid_bytes();
  bytes[2] = 0;
  EXPECT_EQ(decode(bytes), RejectReason::kZeroDetectMult);
}

TEST(BfdCodec, MultipointBitIsRefused) {
  auto bytes = valid_bytes();
  bytes[1] |= 0x01;
  EXPECT_EQ(decode(bytes), RejectReason::kMultipoint);
}

TEST(BfdCodec, ZeroMyDiscriminatorIsRefused) {
  ControlPacket packet = hand_built_packet();
  packet.my_discriminator = 0;
  const ControlPacketBytes bytes = encode_control_packet(packet);
  ControlPacket decoded;
  EXPECT_EQ(decode_control_packet(ByteSpan(bytes), decoded), RejectReason::kZeroMyDiscriminator);
}

TEST(BfdCodec, ZeroYourDiscriminatorOnlyInDownOrAdminDown) {
  for (State state : {State::kAdminDown, State::kDown, State::kInit, State::kUp}) {
    ControlPacket packet = hand_built_packet();
    packet.state = state;
    packet.your_discriminator = 0;
    const ControlPacketBytes bytes = encode_control_packet(packet);
    ControlPacket decoded;
    const bool down = state == State::kDown || state == State::kAdminDown;
    EXPECT_EQ(decode_control_packet(ByteSpan(bytes), decoded),
              down ? RejectReason::kNone : RejectReason::kZeroYourDiscriminator)
        << to_string(state);
  }
}

// A packet with the A bit and an Authentication Section of `auth_len` octets of `type`.
std::vector<std::uint8_t> with_auth(AuthType type, std::uint8_t auth_len, std::uint8_t length) {
  auto bytes = valid_bytes();
  bytes[1] |= 0x04;
  bytes[3] = length;
  bytes.push_back(static_cast<std::uint8_t>(type));
  bytes.push_back(auth_len);
  bytes.resize(length, 0x5a);
  return bytes;
}

TEST(BfdCodec, AuthenticationIsParsedAndRefusedByName) {
  // Keyed MD5 (RFC 5880 4.3): Auth Len 24, so Length 48.
  auto bytes = with_auth(AuthType::kKeyedMd5, 24, 48);
  ControlPacket packet;
  EXPECT_EQ(decode_control_packet(ByteSpan(bytes), packet), RejectReason::kAuthUnsupported);
  EXPECT_TRUE(packet.auth_present);
  EXPECT_EQ(packet.auth_type, AuthType::kKeyedMd5);
  EXPECT_EQ(packet.auth_len, 24);
  EXPECT_STREQ(to_string(packet.auth_type), "keyed_md5");
  // Simple Password (4.2): Auth Len 3 + password.
  bytes = with_auth(AuthType::kSimplePassword, 7, 31);
  EXPECT_EQ(decode(bytes), RejectReason::kAuthUnsupported);
}

TEST(BfdCodec, AuthLengthThatLiesIsRefused) {
  EXPECT_EQ(decode(with_auth(AuthType::kKeyedSha1, 1, 28)), RejectReason::kBadAuthLength);
  EXPECT_EQ(decode(with_auth(AuthType::kKeyedSha1, 28, 51)), RejectReason::kBadAuthLength);
  EXPECT_EQ(decode(with_auth(AuthType::kKeyedSha1, 28, 52)), RejectReason::kAuthUnsupported);
}

TEST(BfdCodec, EveryRejectReasonHasItsOwnName) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kRejectReasonCount; ++i) {
    const std::string name = to_string(static_cast<RejectReason>(i));
    EXPECT_NE(name, "unknown") << i;
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), kRejectReasonCount);
  EXPECT_STREQ(to_string(RejectReason::kBadTtl), "bad_ttl");
  EXPECT_STREQ(to_string(State::kAdminDown), "admin_down");
  EXPECT_STREQ(to_string(Diag::kControlDetectionTimeExpired), "control_detection_time_expired");
  EXPECT_STREQ(to_string(static_cast<Diag>(20)), "reserved");
}

}  // namespace
}  // namespace braid::bfd
