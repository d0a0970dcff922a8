#include "lldp/reject_reason.hpp"

namespace braid::lldp {

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
    case RejectReason::kTlvHeaderTruncated:
      return "tlv_header_truncated";
    case RejectReason::kTlvPastFrame:
      return "tlv_past_frame";
    case RejectReason::kMissingChassisId:
      return "missing_chassis_id";
    case RejectReason::kMissingPortId:
      return "missing_port_id";
    case RejectReason::kMissingTtl:
      return "missing_ttl";
    case RejectReason::kDuplicateMandatoryTlv:
      return "duplicate_mandatory_tlv";
    case RejectReason::kBadChassisIdLength:
      return "bad_chassis_id_length";
    case RejectReason::kBadChassisIdSubtype:
      return "bad_chassis_id_subtype";
    case RejectReason::kBadPortIdLength:
      return "bad_port_id_length";
    case RejectReason::kBadPortIdSubtype:
      return "bad_port_id_subtype";
    case RejectReason::kBadTtlLength:
      return "bad_ttl_length";
    case RejectReason::kBadEndLength:
      return "bad_end_length";
    case RejectReason::kBadStringLength:
      return "bad_string_length";
    case RejectReason::kBadCapabilitiesLength:
      return "bad_capabilities_length";
    case RejectReason::kBadManagementAddressLength:
      return "bad_management_address_length";
    case RejectReason::kBadOrgSpecificLength:
      return "bad_org_specific_length";
    case RejectReason::kCount:
      break;
  }
  return "unknown";
}

}  // namespace braid::lldp
