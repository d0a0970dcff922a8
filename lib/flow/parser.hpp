// Frame → FlowKey. Reads only inside the given span (the caller passes what is contiguous: for
// an mbuf, its first segment), never allocates, and on a truncated or malformed frame returns
// the layers that were valid plus a ParseStatus saying where it stopped.
#pragma once

#include "common/bytes.hpp"
#include "flow/flow_key.hpp"

namespace braid::flow {

// Parses an Ethernet frame (starting at the destination MAC) into `key`, overwriting all of it.
// Understands: Ethernet II; up to two 802.1Q/802.1ad tags; IPv4 with options and fragments;
// IPv6 with hop-by-hop, routing, destination-options and fragment extension headers; TCP, UDP,
// SCTP, ICMP, ICMPv6; RoCEv2 (UDP 4791); and one level of VXLAN (UDP 4789) or GRE (IPv4, IPv6
// or Transparent Ethernet Bridging payload) whose inner headers land in the inner_* fields.
// Fragments stop at L3: only the first fragment carries ports, so no fragment's key has them.
void parse_flow_key(ByteSpan frame, FlowKey& key);

inline FlowKey parse_flow_key(ByteSpan frame) {
  FlowKey key;
  parse_flow_key(frame, key);
  return key;
}

}  // namespace braid::flow
