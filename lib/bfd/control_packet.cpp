#include "bfd/control_packet.hpp"

namespace braid::bfd {
namespace {

// RFC 5880 4.1 Figure: octet offsets of the mandatory section.
constexpr std::size_t kVersionDiagOffset = 0;
constexpr std::size_t kFlagsOffset = 1;
constexpr std::size_t kDetectMultOffset = 2;
constexpr std::size_t kLengthOffset = 3;
constexpr std::size_t kMyDiscriminatorOffset = 4;
constexpr std::size_t kYourDiscriminatorOffset = 8;
constexpr std::size_t kDesiredMinTxOffset = 12;
constexpr std::size_t kRequiredMinRxOffset = 16;
constexpr std::size_t kRequiredMinEchoRxOffset = 20;
constexpr std::size_t kAuthTypeOffset = 24;
constexpr std::size_t kAuthLenOffset = 25;

constexpr unsigned kVersionShift = 5;
constexpr std::uint8_t kDiagMask = 0x1f;
constexpr unsigned kStateShift = 6;
constexpr std::uint8_t kPollBit = 0x20;
constexpr std::uint8_t kFinalBit = 0x10;
constexpr std::uint8_t kControlPlaneIndependentBit = 0x08;
constexpr std::uint8_t kAuthPresentBit = 0x04;
constexpr std::uint8_t kDemandBit = 0x02;
constexpr std::uint8_t kMultipointBit = 0x01;

std::uint8_t flag(bool set, std::uint8_t bit) {
  return set ? bit : 0;
}

}  // namespace

ControlPacketBytes encode_control_packet(const ControlPacket& packet) {
  ControlPacketBytes bytes{};
  const MutableByteSpan out(bytes);
  bytes[kVersionDiagOffset] = static_cast<std::uint8_t>(
      (packet.version << kVersionShift) | (static_cast<std::uint8_t>(packet.diag) & kDiagMask));
  bytes[kFlagsOffset] = static_cast<std::uint8_t>(
      (static_cast<std::uint8_t>(packet.state) << kStateShift) | flag(packet.poll, kPollBit) |
      flag(packet.final, kFinalBit) |
      flag(packet.control_plane_independent, kControlPlaneIndependentBit) |
      flag(packet.auth_present, kAuthPresentBit) | flag(packet.demand, kDemandBit) |
      flag(packet.multipoint, kMultipointBit));
  bytes[kDetectMultOffset] = packet.detect_mult;
  bytes[kLengthOffset] = kControlPacketLen;
  store_be32(out, kMyDiscriminatorOffset, packet.my_discriminator);
  store_be32(out, kYourDiscriminatorOffset, packet.your_discriminator);
  store_be32(out, kDesiredMinTxOffset, packet.desired_min_tx_us);
  store_be32(out, kRequiredMinRxOffset, packet.required_min_rx_us);
  store_be32(out, kRequiredMinEchoRxOffset, packet.required_min_echo_rx_us);
  return bytes;
}

RejectReason decode_control_packet(ByteSpan payload, ControlPacket& out) {
  out = ControlPacket{};
  if (payload.size() < kControlPacketLen) return RejectReason::kPacketTooShort;
  const std::uint8_t flags = payload[kFlagsOffset];
  out.version = static_cast<std::uint8_t>(payload[kVersionDiagOffset] >> kVersionShift);
  out.diag = static_cast<Diag>(payload[kVersionDiagOffset] & kDiagMask);
  out.state = static_cast<State>(flags >> kStateShift);
  out.poll = (flags & kPollBit) != 0;
  out.final = (flags & kFinalBit) != 0;
  out.control_plane_independent = (flags & kControlPlaneIndependentBit) != 0;
  out.auth_present = (flags & kAuthPresentBit) != 0;
  out.demand = (flags & kDemandBit) != 0;
  out.multipoint = (flags & kMultipointBit) != 0;
  out.detect_mult = payload[kDetectMultOffset];
  out.length = payload[kLengthOffset];
  out.my_discriminator = load_be32(payload, kMyDiscriminatorOffset);
  out.your_discriminator = load_be32(payload, kYourDiscriminatorOffset);
  out.desired_min_tx_us = load_be32(payload, kDesiredMinTxOffset);
  out.required_min_rx_us = load_be32(payload, kRequiredMinRxOffset);
  out.required_min_echo_rx_us = load_be32(payload, kRequiredMinEchoRxOffset);

  // RFC 5880 6.8.6, in its order.
  if (out.version != kVersion) return RejectReason::kBadVersion;
  if (out.length < (out.auth_present ? kMinAuthPacketLen : kControlPacketLen)) {
    return RejectReason::kBadLength;
  }
  if (out.length > payload.size()) return RejectReason::kLengthPastPayload;
  if (out.detect_mult == 0) return RejectReason::kZeroDetectMult;
  if (out.multipoint) return RejectReason::kMultipoint;
  if (out.my_discriminator == 0) return RejectReason::kZeroMyDiscriminator;
  if (out.your_discriminator == 0 && out.state != State::kDown && out.state != State::kAdminDown) {
    return RejectReason::kZeroYourDiscriminator;
  }
  if (out.auth_present) {
    // Length >= 26 and Length <= payload size were checked above, so both octets are there.
    out.auth_type = static_cast<AuthType>(payload[kAuthTypeOffset]);
    out.auth_len = payload[kAuthLenOffset];
    if (out.auth_len < kAuthHeaderLen || kControlPacketLen + out.auth_len > out.length) {
      return RejectReason::kBadAuthLength;
    }
    // 6.8.6: "If the A bit is set and no authentication is in use (bfd.AuthType is zero), the
    // packet MUST be discarded." braid has no authentication to be in use.
    return RejectReason::kAuthUnsupported;
  }
  return RejectReason::kNone;
}

}  // namespace braid::bfd
