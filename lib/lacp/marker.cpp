#include "lacp/marker.hpp"

#include <algorithm>

namespace braid::lacp {

SlowFrame encode_marker(const MacAddress& source, const MarkerPdu& pdu) {
  SlowFrame frame{};
  std::copy(kSlowProtocolsAddress.begin(), kSlowProtocolsAddress.end(), frame.begin());
  std::copy(source.begin(), source.end(), frame.begin() + 6);
  store_be16(frame, 12, kSlowProtocolsEthertype);
  const MutableByteSpan body = MutableByteSpan(frame).subspan(kEthernetHeaderLen);
  body[kPduSubtypeOffset] = kMarkerSubtype;
  body[kPduVersionOffset] = kMarkerVersion;
  body[kMarkerTlvOffset] = static_cast<std::uint8_t>(pdu.kind);
  body[kMarkerTlvOffset + 1] = kMarkerInformationLength;
  store_be16(body, kMarkerRequesterPortOffset, pdu.requester_port);
  std::copy(pdu.requester_system.begin(), pdu.requester_system.end(),
            body.begin() + kMarkerRequesterSystemOffset);
  store_be32(body, kMarkerTransactionIdOffset, pdu.requester_transaction_id);
  // Pad (2 octets), Terminator (type 0, length 0) and 90 Reserved octets stay zero.
  return frame;
}

DecodeError decode_marker(ByteSpan pdu, MarkerPdu& out) {
  if (pdu.size() < kSlowPduLen) return DecodeError::kTooShort;
  if (pdu[kPduSubtypeOffset] != kMarkerSubtype) return DecodeError::kUnknownSubtype;
  const std::uint8_t version = pdu[kPduVersionOffset];
  if (version == 0) return DecodeError::kBadVersion;
  const std::uint8_t type = pdu[kMarkerTlvOffset];
  if ((type != kTlvMarkerInformation && type != kTlvMarkerResponse) ||
      pdu[kMarkerTlvOffset + 1] != kMarkerInformationLength) {
    return DecodeError::kBadMarkerTlv;
  }
  // As for LACPDUs, a later version may add TLVs; version 1 must end right after the marker TLV.
  if (version == kMarkerVersion && (pdu[kMarkerTerminatorOffset] != kTlvTerminator ||
                                    pdu[kMarkerTerminatorOffset + 1] != kTerminatorLength)) {
    return DecodeError::kBadMarkerTerminator;
  }
  MarkerPdu decoded;
  decoded.kind = static_cast<MarkerKind>(type);
  decoded.version = version;
  decoded.requester_port = load_be16(pdu, kMarkerRequesterPortOffset);
  std::copy_n(pdu.begin() + kMarkerRequesterSystemOffset, decoded.requester_system.size(),
              decoded.requester_system.begin());
  decoded.requester_transaction_id = load_be32(pdu, kMarkerTransactionIdOffset);
  out = decoded;
  return DecodeError::kNone;
}

MarkerPdu marker_response_for(const MarkerPdu& request) {
  MarkerPdu response = request;
  response.kind = MarkerKind::kResponse;
  response.version = kMarkerVersion;
  return response;
}

}  // namespace braid::lacp
