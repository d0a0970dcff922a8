// The header fields a classification rule reads, for the outer headers and, in a VXLAN or GRE
// tunnel, the inner ones. Two ways to get them: from a FlowKey the hash path already parsed
// (fields_from_key), or straight from the frame for the common shapes (fields_from_frame: one
// VLAN tag at most, IPv4 without options or IPv6 without extension headers, TCP or UDP, RoCEv2,
// and VXLAN carrying such a frame), which needs no FlowKey. Both give the same fields for every
// frame the second accepts (a unit test and the fuzz target check it). A field that is absent holds
// its kNo* value: every value a table is indexed by is in range, so the classifier needs no branch
// per field.
#pragma once

#include <cstdint>

#include "common/bytes.hpp"
#include "flow/flow_key.hpp"
#include "flow/l34_fields.hpp"

namespace braid::classify {

inline constexpr std::uint8_t kNoPcp = 8;            // untagged
inline constexpr std::uint8_t kNoDscp = 64;          // not IP
inline constexpr std::uint16_t kNoProtocol = 256;    // not IP
inline constexpr std::uint16_t kNoRoceOpcode = 256;  // not RoCEv2

struct HeaderFields {
  std::uint16_t protocol = kNoProtocol;
  std::uint16_t roce_opcode = kNoRoceOpcode;
  std::uint16_t src_port = 0;  // valid when has_ports
  std::uint16_t dst_port = 0;
  std::uint32_t roce_dest_qp = 0;  // valid when roce_opcode != kNoRoceOpcode
  std::uint8_t pcp = kNoPcp;
  std::uint8_t dscp = kNoDscp;
  bool has_ports = false;  // TCP, UDP or SCTP header present (never for IP fragments)

  bool operator==(const HeaderFields&) const = default;
};

struct FrameFields {
  HeaderFields outer;
  HeaderFields inner;   // default (all absent) unless tunnel
  bool tunnel = false;  // VXLAN or GRE header parsed

  bool operator==(const FrameFields&) const = default;
};

void fields_from_key(const flow::FlowKey& key, FrameFields& fields);

// The outer fields of a frame the l34 fast path took (flow/l34_fields.hpp): as fields_from_key's
// for it, tunnels aside (a VXLAN frame's inner headers are not read).
inline HeaderFields fields_from_l34(const flow::L34Fields& l34) {
  HeaderFields out;
  out.protocol = l34.protocol;
  out.roce_opcode = l34.rocev2 ? l34.roce_opcode : kNoRoceOpcode;
  out.src_port = l34.src_port;
  out.dst_port = l34.dst_port;
  out.roce_dest_qp = l34.rocev2 ? l34.roce_dest_qp : 0;
  out.pcp = l34.tagged ? l34.pcp : kNoPcp;
  out.dscp = l34.dscp;
  out.has_ports = true;
  return out;
}

// The fast path: false (and `fields` unspecified) for any frame that is not one of the shapes
// above, or is cut short or malformed; the caller then parses it (flow::parse_flow_key) and uses
// fields_from_key.
bool fields_from_frame(ByteSpan frame, FrameFields& fields);

// Any frame's fields: the fast path, else the full parser (flow::parse_flow_key).
FrameFields fields_of(ByteSpan frame);

// RoCEv2 congestion notification packets (IBTA Annex A17: BTH opcode 0x81).
inline constexpr std::uint16_t kRoceCnpOpcode = 0x81;

// Whether `frame` is a RoCEv2 CNP, outside a tunnel or in one (any shape the parser reads).
bool is_roce_cnp(ByteSpan frame);

}  // namespace braid::classify
