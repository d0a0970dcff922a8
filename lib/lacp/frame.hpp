// Entry point for received Slow Protocols frames: checks the Ethernet header and dispatches on
// the subtype to the LACPDU or Marker decoder.
#pragma once

#include "common/bytes.hpp"
#include "lacp/marker.hpp"
#include "lacp/pdu.hpp"

namespace braid::lacp {

enum class FrameKind : std::uint8_t { kInvalid, kLacpdu, kMarker };

struct DecodedFrame {
  FrameKind kind = FrameKind::kInvalid;
  DecodeError error = DecodeError::kNone;
  MacAddress source{};
  Lacpdu lacpdu;
  MarkerPdu marker;
};

DecodedFrame decode_slow_frame(ByteSpan frame);

}  // namespace braid::lacp
