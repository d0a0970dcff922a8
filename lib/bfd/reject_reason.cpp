#include "bfd/reject_reason.hpp"

namespace braid::bfd {

const char* to_string(RejectReason reason) {
  switch (reason) {
    case RejectReason::kNone:
      return "none";
    case RejectReason::kFrameTooShort:
      return "frame_too_short";
    case RejectReason::kBadDestinationMac:
      return "bad_destination_mac";
    case RejectReason::kBadEthertype:
      return "bad_ethertype";
    case RejectReason::kBadIpHeader:
      return "bad_ip_header";
    case RejectReason::kIpFragment:
      return "ip_fragment";
    case RejectReason::kBadIpChecksum:
      return "bad_ip_checksum";
    case RejectReason::kBadTtl:
      return "bad_ttl";
    case RejectReason::kNotUdp:
      return "not_udp";
    case RejectReason::kBadDestinationIp:
      return "bad_destination_ip";
    case RejectReason::kBadUdpPort:
      return "bad_udp_port";
    case RejectReason::kBadUdpLength:
      return "bad_udp_length";
    case RejectReason::kBadUdpChecksum:
      return "bad_udp_checksum";
    case RejectReason::kPacketTooShort:
      return "packet_too_short";
    case RejectReason::kBadVersion:
      return "bad_version";
    case RejectReason::kBadLength:
      return "bad_length";
    case RejectReason::kLengthPastPayload:
      return "length_past_payload";
    case RejectReason::kZeroDetectMult:
      return "zero_detect_mult";
    case RejectReason::kMultipoint:
      return "multipoint";
    case RejectReason::kZeroMyDiscriminator:
      return "zero_my_discriminator";
    case RejectReason::kZeroYourDiscriminator:
      return "zero_your_discriminator";
    case RejectReason::kBadAuthLength:
      return "bad_auth_length";
    case RejectReason::kAuthUnsupported:
      return "auth_unsupported";
    case RejectReason::kYourDiscriminatorMismatch:
      return "your_discriminator_mismatch";
    case RejectReason::kLocalAdminDown:
      return "local_admin_down";
    case RejectReason::kCount:
      break;
  }
  return "unknown";
}

}  // namespace braid::bfd
