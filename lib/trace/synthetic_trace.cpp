#include "trace/synthetic_trace.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "trace/pcap_writer.hpp"

namespace braid::trace {
namespace {

constexpr std::uint32_t kIpv4Base = 0x0a000000;        // 10.0.0.0/8 sources
constexpr std::uint32_t kIpv4ServerBase = 0xc0a80000;  // 192.168.0.0/16 servers
constexpr std::uint16_t kEphemeralPortBase = 32768;
constexpr std::uint16_t kServicePorts[] = {80, 443, 3260, 4420, 4791, 2049};

}  // namespace

std::vector<FlowSpec> make_flows(const TraceSpec& spec) {
  std::mt19937 random(spec.seed);
  std::vector<FlowSpec> flows(spec.flows);
  for (std::uint32_t i = 0; i < spec.flows; ++i) {
    FlowSpec& flow = flows[i];
    // The flow index is folded into the source address and port, so flows are distinct.
    flow.ipv6 = random() % 100 < spec.ipv6_percent;
    flow.vlan_id = random() % 100 < spec.vlan_percent ? static_cast<std::uint16_t>(100 + i % 8) : 0;
    flow.protocol = random() % 2 == 0 ? kIpProtoTcp : kIpProtoUdp;
    flow.src_port = static_cast<std::uint16_t>(kEphemeralPortBase + (random() % 28000));
    flow.dst_port = kServicePorts[random() % std::size(kServicePorts)];
    flow.src_ipv4 = kIpv4Base | (i & 0x00ffffff);
    flow.dst_ipv4 = kIpv4ServerBase | (random() & 0xffff);
    flow.src_ipv6 = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    flow.dst_ipv6 = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    for (int byte = 0; byte < 4; ++byte) {
      flow.src_ipv6[12 + byte] = static_cast<std::uint8_t>(i >> (24 - 8 * byte));
      flow.dst_ipv6[12 + byte] = static_cast<std::uint8_t>(random());
    }
  }
  return flows;
}

std::vector<std::uint32_t> make_packet_flows(const TraceSpec& spec) {
  std::vector<std::uint32_t> packet_flows(spec.packets);
  if (spec.flows == 0) return {};
  if (spec.zipf_exponent <= 0.0) {
    for (std::uint32_t i = 0; i < spec.packets; ++i)
      packet_flows[i] = i % spec.flows;
    return packet_flows;
  }
  // Zipf: flow k (1-based) carries a share proportional to 1 / k^s. Sample by inverting the CDF.
  std::vector<double> cdf(spec.flows);
  double total = 0;
  for (std::uint32_t k = 0; k < spec.flows; ++k) {
    total += 1.0 / std::pow(static_cast<double>(k + 1), spec.zipf_exponent);
    cdf[k] = total;
  }
  std::mt19937_64 random(spec.seed ^ 0x5eed);
  std::uniform_real_distribution<double> uniform(0.0, total);
  for (std::uint32_t i = 0; i < spec.packets; ++i) {
    const auto it = std::lower_bound(cdf.begin(), cdf.end(), uniform(random));
    packet_flows[i] = static_cast<std::uint32_t>(
        std::min<std::ptrdiff_t>(it - cdf.begin(), static_cast<std::ptrdiff_t>(spec.flows) - 1));
  }
  return packet_flows;
}

void write_trace(const std::string& path, const TraceSpec& spec) {
  const std::vector<FlowSpec> flows = make_flows(spec);
  std::vector<std::vector<std::uint8_t>> frames;
  frames.reserve(flows.size());
  for (const FlowSpec& flow : flows)
    frames.push_back(build_frame(flow, spec.frame_size));
  PcapWriter writer(path);
  std::uint64_t timestamp_ns = 0;
  for (std::uint32_t flow : make_packet_flows(spec)) {
    writer.write(frames[flow], timestamp_ns);
    timestamp_ns += 1000;
  }
  writer.close();
}

}  // namespace braid::trace
