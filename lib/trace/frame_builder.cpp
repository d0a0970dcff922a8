#include "trace/frame_builder.hpp"

#include <algorithm>

#include "common/bytes.hpp"
#include "common/inet_checksum.hpp"

namespace braid::trace {
namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86dd;
constexpr std::uint16_t kEtherTypeVlan = 0x8100;
constexpr std::size_t kEthernetHeader = 14;
constexpr std::size_t kVlanTag = 4;
constexpr std::size_t kIpv4Header = 20;
constexpr std::size_t kIpv6Header = 40;
constexpr std::size_t kTcpHeader = 20;
constexpr std::size_t kUdpHeader = 8;
constexpr std::uint8_t kDefaultTtl = 64;

}  // namespace

std::vector<std::uint8_t> build_frame(const FlowSpec& flow, std::uint16_t frame_size) {
  const std::size_t l2_len = kEthernetHeader + (flow.vlan_id != 0 ? kVlanTag : 0);
  const std::size_t l3_len = flow.ipv6 ? kIpv6Header : kIpv4Header;
  const std::size_t l4_len = flow.protocol == kIpProtoTcp ? kTcpHeader : kUdpHeader;
  const std::size_t size = std::max<std::size_t>(frame_size, l2_len + l3_len + l4_len);
  std::vector<std::uint8_t> frame(size, 0);
  MutableByteSpan bytes(frame);

  std::copy(flow.dst_mac.begin(), flow.dst_mac.end(), frame.begin());
  std::copy(flow.src_mac.begin(), flow.src_mac.end(), frame.begin() + 6);
  std::size_t offset = 12;
  if (flow.vlan_id != 0) {
    store_be16(bytes, offset, kEtherTypeVlan);
    store_be16(bytes, offset + 2, flow.vlan_id & 0x0fff);
    offset += kVlanTag;
  }
  store_be16(bytes, offset, flow.ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4);

  const std::size_t l3 = l2_len;
  const std::size_t l4 = l3 + l3_len;
  const auto l4_total = static_cast<std::uint16_t>(size - l4);
  std::uint32_t pseudo_sum = 0;
  if (flow.ipv6) {
    // Version 6, the traffic class, no flow label.
    store_be32(bytes, l3, 0x60000000u | std::uint32_t{flow.traffic_class} << 20);
    store_be16(bytes, l3 + 4, l4_total);
    frame[l3 + 6] = flow.protocol;
    frame[l3 + 7] = kDefaultTtl;
    std::copy(flow.src_ipv6.begin(), flow.src_ipv6.end(),
              frame.begin() + static_cast<long>(l3 + 8));
    std::copy(flow.dst_ipv6.begin(), flow.dst_ipv6.end(),
              frame.begin() + static_cast<long>(l3 + 24));
    pseudo_sum = add_checksum(0, bytes.subspan(l3 + 8, 32));
  } else {
    frame[l3] = 0x45;  // version 4, IHL 5
    frame[l3 + 1] = flow.traffic_class;
    store_be16(bytes, l3 + 2, static_cast<std::uint16_t>(size - l3));
    frame[l3 + 8] = kDefaultTtl;
    frame[l3 + 9] = flow.protocol;
    store_be32(bytes, l3 + 12, flow.src_ipv4);
    store_be32(bytes, l3 + 16, flow.dst_ipv4);
    store_be16(bytes, l3 + 10, fold_checksum(add_checksum(0, bytes.subspan(l3, kIpv4Header))));
    pseudo_sum = add_checksum(0, bytes.subspan(l3 + 12, 8));
  }
  pseudo_sum += flow.protocol + l4_total;

  store_be16(bytes, l4, flow.src_port);
  store_be16(bytes, l4 + 2, flow.dst_port);
  std::size_t checksum_at = 0;
  if (flow.protocol == kIpProtoTcp) {
    frame[l4 + 12] = 0x50;  // data offset 5 words
    frame[l4 + 13] = 0x10;  // ACK
    store_be16(bytes, l4 + 14, 0xffff);
    checksum_at = l4 + 16;
  } else {
    store_be16(bytes, l4 + 4, l4_total);
    checksum_at = l4 + 6;
  }
  std::uint16_t l4_checksum = fold_checksum(add_checksum(pseudo_sum, bytes.subspan(l4)));
  if (flow.protocol == kIpProtoUdp && l4_checksum == 0) l4_checksum = 0xffff;  // RFC 768
  store_be16(bytes, checksum_at, l4_checksum);
  return frame;
}

}  // namespace braid::trace
