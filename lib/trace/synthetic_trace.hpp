// Synthetic traffic: many distinct flows, packets spread evenly or with Zipf-skewed sizes
// (elephants and mice), written as a pcap that net_pcap replays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/frame_builder.hpp"

namespace braid::trace {

struct TraceSpec {
  std::uint32_t flows = 1024;
  std::uint32_t packets = 4096;
  std::uint16_t frame_size = 64;
  std::uint32_t seed = 1;
  double zipf_exponent = 0.0;       // 0: every flow gets the same share of packets
  std::uint32_t ipv6_percent = 10;  // share of flows that are IPv6
  std::uint32_t vlan_percent = 0;   // share of flows that are 802.1Q-tagged
};

// Distinct flows (no two share a 5-tuple), reproducible from the seed.
std::vector<FlowSpec> make_flows(const TraceSpec& spec);

// Which flow each packet belongs to, in trace order.
std::vector<std::uint32_t> make_packet_flows(const TraceSpec& spec);

// Writes the trace; throws std::runtime_error when the file cannot be written.
void write_trace(const std::string& path, const TraceSpec& spec);

}  // namespace braid::trace
