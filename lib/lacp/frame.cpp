#include "lacp/frame.hpp"

#include <algorithm>

namespace braid::lacp {

DecodedFrame decode_slow_frame(ByteSpan frame) {
  DecodedFrame out;
  if (frame.size() < kEthernetHeaderLen + 2) {
    out.error = DecodeError::kTooShort;
    return out;
  }
  if (!std::equal(kSlowProtocolsAddress.begin(), kSlowProtocolsAddress.end(), frame.begin())) {
    out.error = DecodeError::kBadDestination;
    return out;
  }
  std::copy_n(frame.begin() + 6, out.source.size(), out.source.begin());
  if (load_be16(frame, 12) != kSlowProtocolsEthertype) {
    out.error = DecodeError::kBadEthertype;
    return out;
  }
  const ByteSpan pdu = frame.subspan(kEthernetHeaderLen);
  switch (pdu[kPduSubtypeOffset]) {
    case kLacpSubtype:
      out.error = decode_lacpdu(pdu, out.lacpdu);
      if (out.error == DecodeError::kNone) out.kind = FrameKind::kLacpdu;
      break;
    case kMarkerSubtype:
      out.error = decode_marker(pdu, out.marker);
      if (out.error == DecodeError::kNone) out.kind = FrameKind::kMarker;
      break;
    default:
      out.error = DecodeError::kUnknownSubtype;
      break;
  }
  return out;
}

}  // namespace braid::lacp
