#include "lacp/decode_error.hpp"

namespace braid::lacp {

const char* to_string(DecodeError error) {
  switch (error) {
    case DecodeError::kNone:
      return "none";
    case DecodeError::kTooShort:
      return "too_short";
    case DecodeError::kBadDestination:
      return "bad_destination";
    case DecodeError::kBadEthertype:
      return "bad_ethertype";
    case DecodeError::kUnknownSubtype:
      return "unknown_subtype";
    case DecodeError::kBadVersion:
      return "bad_version";
    case DecodeError::kBadActorTlv:
      return "bad_actor_tlv";
    case DecodeError::kBadPartnerTlv:
      return "bad_partner_tlv";
    case DecodeError::kBadCollectorTlv:
      return "bad_collector_tlv";
    case DecodeError::kBadTlvLength:
      return "bad_tlv_length";
    case DecodeError::kBadTerminator:
      return "bad_terminator";
    case DecodeError::kBadActorPort:
      return "bad_actor_port";
    case DecodeError::kBadMarkerTlv:
      return "bad_marker_tlv";
    case DecodeError::kBadMarkerTerminator:
      return "bad_marker_terminator";
    case DecodeError::kLoopback:
      return "loopback";
    case DecodeError::kCount:
      break;
  }
  return "unknown";
}

}  // namespace braid::lacp
