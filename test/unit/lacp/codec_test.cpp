#include <gtest/gtest.h>

#include <vector>

#include "golden_frames.hpp"
#include "lacp/frame.hpp"
#include "lacp/marker.hpp"
#include "lacp/pdu.hpp"

namespace braid::lacp {
namespace {

std::vector<std::uint8_t> bytes(const SlowFrame& frame) {
  return {frame.begin(), frame.end()};
}

DecodeError decode_error(const std::vector<std::uint8_t>& frame) {
  return decode_slow_frame(ByteSpan(frame)).error;
}

TEST(LacpCodec, LacpduMatchesHandBuiltFrame) {
  const SlowFrame encoded = encode_lacpdu(golden::kActorPortMac, golden::lacpdu());
  EXPECT_EQ(bytes(encoded), bytes(golden::lacpdu_frame()));
  EXPECT_EQ(encoded.size(), 124u);
}

TEST(LacpCodec, LacpduRoundTrips) {
  const SlowFrame frame = golden::lacpdu_frame();
  const DecodedFrame decoded = decode_slow_frame(ByteSpan(frame));
  ASSERT_EQ(decoded.kind, FrameKind::kLacpdu) << to_string(decoded.error);
  EXPECT_EQ(decoded.source, golden::kActorPortMac);
  EXPECT_EQ(decoded.lacpdu.actor, golden::lacpdu().actor);
  EXPECT_EQ(decoded.lacpdu.partner, golden::lacpdu().partner);
  EXPECT_EQ(decoded.lacpdu.collector_max_delay, 0x1234);
  EXPECT_EQ(decoded.lacpdu.version, 1);
}

TEST(LacpCodec, MarkerResponseMatchesHandBuiltFrame) {
  const SlowFrame request = golden::marker_request_frame();
  const DecodedFrame decoded = decode_slow_frame(ByteSpan(request));
  ASSERT_EQ(decoded.kind, FrameKind::kMarker) << to_string(decoded.error);
  EXPECT_EQ(decoded.marker.kind, MarkerKind::kInformation);
  EXPECT_EQ(decoded.marker.requester_port, 7);
  EXPECT_EQ(decoded.marker.requester_system, golden::kRequesterSystem);
  EXPECT_EQ(decoded.marker.requester_transaction_id, 0xDEADBEEFu);
  const SlowFrame response =
      encode_marker(golden::kResponderPortMac, marker_response_for(decoded.marker));
  EXPECT_EQ(bytes(response), bytes(golden::marker_response_frame()));
  // And the request re-encodes to itself.
  EXPECT_EQ(bytes(encode_marker({0x00, 0x1B, 0x21, 0x3C, 0x4D, 0x5F}, decoded.marker)),
            bytes(request));
}

TEST(LacpCodec, TrailingOctetsAfterPduAreIgnored) {
  auto frame = bytes(golden::lacpdu_frame());
  frame.insert(frame.end(), {0xAA, 0xBB, 0xCC, 0xDD});  // e.g. an FCS left on by the NIC
  EXPECT_EQ(decode_error(frame), DecodeError::kNone);
}

TEST(LacpCodec, VersionTwoIsAcceptedAndExtraTlvsSkipped) {
  // 6.4.2.3 b): a receiver processes a later version with the fields it knows. Put a version 2
  // style TLV (Port Algorithm, type 4, length 6) where the Terminator was, and move the
  // Terminator after it.
  auto frame = bytes(golden::lacpdu_frame());
  frame[15] = 2;
  const std::size_t at = 14 + 58;
  const std::uint8_t algorithm_tlv[] = {0x04, 0x06, 0x00, 0x80, 0xC2, 0x05};
  std::copy(std::begin(algorithm_tlv), std::end(algorithm_tlv), frame.begin() + at);
  frame[at + 6] = 0;
  frame[at + 7] = 0;
  const DecodedFrame decoded = decode_slow_frame(ByteSpan(frame));
  ASSERT_EQ(decoded.kind, FrameKind::kLacpdu) << to_string(decoded.error);
  EXPECT_EQ(decoded.lacpdu.version, 2);
  EXPECT_EQ(decoded.lacpdu.actor, golden::lacpdu().actor);
  // A version 2 TLV whose length runs off the end is rejected, not followed.
  frame[at + 1] = 0xF0;
  EXPECT_EQ(decode_error(frame), DecodeError::kBadTlvLength);
  frame[at + 1] = 0x01;
  EXPECT_EQ(decode_error(frame), DecodeError::kBadTlvLength);
}

struct Mutation {
  const char* name;
  std::size_t offset;  // into the frame
  std::uint8_t value;
  DecodeError expected;
};

TEST(LacpCodec, EveryRejectionReasonIsNamed) {
  const Mutation mutations[] = {
      {"destination", 5, 0x03, DecodeError::kBadDestination},
      {"ethertype", 13, 0x08, DecodeError::kBadEthertype},
      {"subtype OAM", 14, 0x03, DecodeError::kUnknownSubtype},
      {"version 0", 15, 0x00, DecodeError::kBadVersion},
      {"actor type", 16, 0x02, DecodeError::kBadActorTlv},
      {"actor length", 17, 19, DecodeError::kBadActorTlv},
      {"partner type", 36, 0x01, DecodeError::kBadPartnerTlv},
      {"partner length", 37, 21, DecodeError::kBadPartnerTlv},
      {"collector type", 56, 0x04, DecodeError::kBadCollectorTlv},
      {"collector length", 57, 15, DecodeError::kBadCollectorTlv},
      {"terminator type", 72, 0x05, DecodeError::kBadTerminator},
      {"terminator length", 73, 0x01, DecodeError::kBadTerminator},
      {"actor port 0", 31, 0x00, DecodeError::kBadActorPort},
  };
  for (const Mutation& mutation : mutations) {
    auto frame = bytes(golden::lacpdu_frame());
    frame[mutation.offset] = mutation.value;
    EXPECT_EQ(decode_error(frame), mutation.expected) << mutation.name;
  }
  auto marker = bytes(golden::marker_request_frame());
  marker[16] = 3;
  EXPECT_EQ(decode_error(marker), DecodeError::kBadMarkerTlv);
  marker = bytes(golden::marker_request_frame());
  marker[17] = 15;
  EXPECT_EQ(decode_error(marker), DecodeError::kBadMarkerTlv);
  marker = bytes(golden::marker_request_frame());
  marker[33] = 2;
  EXPECT_EQ(decode_error(marker), DecodeError::kBadMarkerTerminator);
  marker = bytes(golden::marker_request_frame());
  marker[15] = 0;
  EXPECT_EQ(decode_error(marker), DecodeError::kBadVersion);
}

TEST(LacpCodec, ShortFramesAreRejectedAtEveryLength) {
  const auto full = bytes(golden::lacpdu_frame());
  for (std::size_t length = 0; length < full.size(); ++length) {
    const std::vector<std::uint8_t> cut(full.begin(), full.begin() + length);
    const DecodeError error = decode_error(cut);
    EXPECT_EQ(error, DecodeError::kTooShort) << "length " << length;
  }
  const auto marker = bytes(golden::marker_request_frame());
  const std::vector<std::uint8_t> cut(marker.begin(), marker.begin() + 60);
  EXPECT_EQ(decode_error(cut), DecodeError::kTooShort);
}

TEST(LacpCodec, ReasonNamesAreDistinct) {
  for (std::size_t i = 0; i < kDecodeErrorCount; ++i) {
    for (std::size_t j = i + 1; j < kDecodeErrorCount; ++j) {
      EXPECT_STRNE(to_string(static_cast<DecodeError>(i)), to_string(static_cast<DecodeError>(j)));
    }
  }
  EXPECT_STREQ(to_string(DecodeError::kTooShort), "too_short");
}

TEST(LacpCodec, StateStringNamesBits) {
  EXPECT_EQ(state_string(0x3F), "ATGSCD..");
  EXPECT_EQ(state_string(0xC0), "......FE");
  const StateBits bits = decode_state(0x3D);
  EXPECT_TRUE(bits.activity);
  EXPECT_FALSE(bits.short_timeout);
  EXPECT_TRUE(bits.synchronization);
}

}  // namespace
}  // namespace braid::lacp
