// Marker protocol PDUs (802.1AX-2014 6.5.3): Marker Information (request) and Marker Response.
// braid answers requests (the Marker Responder, 6.5.4.2); it does not originate markers.
#pragma once

#include <cstdint>

#include "common/bytes.hpp"
#include "lacp/constants.hpp"
#include "lacp/decode_error.hpp"
#include "lacp/pdu.hpp"

namespace braid::lacp {

enum class MarkerKind : std::uint8_t {
  kInformation = kTlvMarkerInformation,
  kResponse = kTlvMarkerResponse
};

struct MarkerPdu {
  MarkerKind kind = MarkerKind::kInformation;
  std::uint8_t version = kMarkerVersion;
  std::uint16_t requester_port = 0;
  MacAddress requester_system{};
  std::uint32_t requester_transaction_id = 0;
};

SlowFrame encode_marker(const MacAddress& source, const MarkerPdu& pdu);
// `pdu` starts at the subtype octet, like decode_lacpdu.
DecodeError decode_marker(ByteSpan pdu, MarkerPdu& out);

// 6.5.4.2: the response carries the requester's port, system and transaction id unchanged,
// with the TLV type changed to Marker Response; it is sent from the receiving port's MAC.
MarkerPdu marker_response_for(const MarkerPdu& request);

}  // namespace braid::lacp
