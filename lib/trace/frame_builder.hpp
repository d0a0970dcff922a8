// Builds well-formed Ethernet/VLAN/IPv4/IPv6/TCP/UDP frames with correct checksums: traffic for
// the demo trace, benchmarks and tests.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace braid::trace {

using MacAddress = std::array<std::uint8_t, 6>;
using Ipv6Address = std::array<std::uint8_t, 16>;

inline constexpr std::uint8_t kIpProtoTcp = 6;
inline constexpr std::uint8_t kIpProtoUdp = 17;

struct FlowSpec {
  MacAddress src_mac{0x02, 0, 0, 0, 0, 1};
  MacAddress dst_mac{0x02, 0, 0, 0, 0, 2};
  std::uint16_t vlan_id = 0;  // 0: untagged
  bool ipv6 = false;
  std::uint32_t src_ipv4 = 0;  // host order
  std::uint32_t dst_ipv4 = 0;
  Ipv6Address src_ipv6{};
  Ipv6Address dst_ipv6{};
  std::uint8_t protocol = kIpProtoUdp;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  std::uint8_t traffic_class = 0;  // IPv4 TOS / IPv6 Traffic Class: DSCP << 2 | ECN
};

// `frame_size` counts bytes as captured (no FCS); frames too small for their headers grow to fit.
std::vector<std::uint8_t> build_frame(const FlowSpec& flow, std::uint16_t frame_size);

}  // namespace braid::trace
