#include "lacp/pdu.hpp"

#include <algorithm>

namespace braid::lacp {
namespace {

void write_header(MutableByteSpan frame, const MacAddress& source) {
  std::copy(kSlowProtocolsAddress.begin(), kSlowProtocolsAddress.end(), frame.begin());
  std::copy(source.begin(), source.end(), frame.begin() + 6);
  store_be16(frame, 12, kSlowProtocolsEthertype);
}

void write_info(MutableByteSpan tlv, std::uint8_t type, const PortInfo& info) {
  tlv[0] = type;
  tlv[1] = kActorInformationLength;
  store_be16(tlv, kInfoSystemPriorityOffset, info.system_priority);
  std::copy(info.system.begin(), info.system.end(), tlv.begin() + kInfoSystemOffset);
  store_be16(tlv, kInfoKeyOffset, info.key);
  store_be16(tlv, kInfoPortPriorityOffset, info.port_priority);
  store_be16(tlv, kInfoPortOffset, info.port_number);
  tlv[kInfoStateOffset] = info.state;
  // Octets 17..19 of the TLV are Reserved, transmitted as 0.
}

PortInfo read_info(ByteSpan tlv) {
  PortInfo info;
  info.system_priority = load_be16(tlv, kInfoSystemPriorityOffset);
  std::copy_n(tlv.begin() + kInfoSystemOffset, info.system.size(), info.system.begin());
  info.key = load_be16(tlv, kInfoKeyOffset);
  info.port_priority = load_be16(tlv, kInfoPortPriorityOffset);
  info.port_number = load_be16(tlv, kInfoPortOffset);
  info.state = tlv[kInfoStateOffset];
  return info;
}

// Version 2+ TLVs (6.4.2.4) sit between the Collector TLV and the Terminator. A version 1
// receiver skips them, but still insists that each one fits so a hostile length cannot walk it
// off the end of the frame.
DecodeError walk_to_terminator(ByteSpan pdu) {
  std::size_t offset = kTerminatorTlvOffset;
  while (true) {
    if (offset + 2 > pdu.size()) return DecodeError::kBadTerminator;
    const std::uint8_t type = pdu[offset];
    const std::uint8_t length = pdu[offset + 1];
    if (type == kTlvTerminator) {
      return length == kTerminatorLength ? DecodeError::kNone : DecodeError::kBadTerminator;
    }
    if (length < 2 || offset + length > pdu.size()) return DecodeError::kBadTlvLength;
    offset += length;
  }
}

}  // namespace

SlowFrame encode_lacpdu(const MacAddress& source, const Lacpdu& pdu) {
  SlowFrame frame{};
  write_header(frame, source);
  const MutableByteSpan body = MutableByteSpan(frame).subspan(kEthernetHeaderLen);
  body[kPduSubtypeOffset] = kLacpSubtype;
  body[kPduVersionOffset] = kLacpVersion;
  write_info(body.subspan(kActorTlvOffset), kTlvActorInformation, pdu.actor);
  write_info(body.subspan(kPartnerTlvOffset), kTlvPartnerInformation, pdu.partner);
  body[kCollectorTlvOffset] = kTlvCollectorInformation;
  body[kCollectorTlvOffset + 1] = kCollectorInformationLength;
  store_be16(body, kCollectorTlvOffset + kCollectorMaxDelayOffset, pdu.collector_max_delay);
  body[kTerminatorTlvOffset] = kTlvTerminator;
  body[kTerminatorTlvOffset + 1] = kTerminatorLength;
  return frame;
}

DecodeError decode_lacpdu(ByteSpan pdu, Lacpdu& out) {
  if (pdu.size() < kSlowPduLen) return DecodeError::kTooShort;
  if (pdu[kPduSubtypeOffset] != kLacpSubtype) return DecodeError::kUnknownSubtype;
  const std::uint8_t version = pdu[kPduVersionOffset];
  if (version == 0) return DecodeError::kBadVersion;
  if (pdu[kActorTlvOffset] != kTlvActorInformation ||
      pdu[kActorTlvOffset + 1] != kActorInformationLength) {
    return DecodeError::kBadActorTlv;
  }
  if (pdu[kPartnerTlvOffset] != kTlvPartnerInformation ||
      pdu[kPartnerTlvOffset + 1] != kPartnerInformationLength) {
    return DecodeError::kBadPartnerTlv;
  }
  if (pdu[kCollectorTlvOffset] != kTlvCollectorInformation ||
      pdu[kCollectorTlvOffset + 1] != kCollectorInformationLength) {
    return DecodeError::kBadCollectorTlv;
  }
  if (version == kLacpVersion) {
    // Trailing octets past the 110-octet PDU (an FCS a NIC did not strip) are ignored.
    if (pdu[kTerminatorTlvOffset] != kTlvTerminator ||
        pdu[kTerminatorTlvOffset + 1] != kTerminatorLength) {
      return DecodeError::kBadTerminator;
    }
  } else if (const DecodeError error = walk_to_terminator(pdu); error != DecodeError::kNone) {
    return error;
  }
  Lacpdu decoded;
  decoded.version = version;
  decoded.actor = read_info(pdu.subspan(kActorTlvOffset));
  decoded.partner = read_info(pdu.subspan(kPartnerTlvOffset));
  decoded.collector_max_delay = load_be16(pdu, kCollectorTlvOffset + kCollectorMaxDelayOffset);
  if (decoded.actor.port_number == 0) return DecodeError::kBadActorPort;
  out = decoded;
  return DecodeError::kNone;
}

}  // namespace braid::lacp
