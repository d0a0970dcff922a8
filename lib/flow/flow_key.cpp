#include "flow/flow_key.hpp"

namespace braid::flow {

std::string_view to_string(ParseStatus status) {
  switch (status) {
    case ParseStatus::ok:
      return "ok";
    case ParseStatus::truncated_l2:
      return "truncated_l2";
    case ParseStatus::vlan_depth_exceeded:
      return "vlan_depth_exceeded";
    case ParseStatus::unknown_ethertype:
      return "unknown_ethertype";
    case ParseStatus::truncated_l3:
      return "truncated_l3";
    case ParseStatus::bad_ip_version:
      return "bad_ip_version";
    case ParseStatus::bad_ipv4_ihl:
      return "bad_ipv4_ihl";
    case ParseStatus::bad_ipv4_length:
      return "bad_ipv4_length";
    case ParseStatus::bad_ipv6_ext:
      return "bad_ipv6_ext";
    case ParseStatus::unknown_l4:
      return "unknown_l4";
    case ParseStatus::truncated_l4:
      return "truncated_l4";
    case ParseStatus::truncated_tunnel:
      return "truncated_tunnel";
    case ParseStatus::bad_tunnel:
      return "bad_tunnel";
  }
  return "unknown";
}

}  // namespace braid::flow
