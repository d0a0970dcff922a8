// A bond's BFD (bonds[].bfd, doc/health.md#bfd): one session per member, RFC 7130 micro-BFD or
// RFC 5881 single-hop, and the addresses each member's session uses. Plain data; the loader
// (bfd_config.cpp) resolves every member's addresses, so the bond reads one entry per member.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bfd/constants.hpp"
#include "bfd/frame.hpp"

namespace braid::config {

enum class BfdMode { kOff, kMicro, kSingleHop };

// One member's session addresses, resolved: bond-wide values unless the member overrides them.
struct BfdMemberConfig {
  std::string member;  // port name
  bfd::IpAddress local_ip;
  bfd::IpAddress remote_ip;
  bfd::MacAddress remote_mac{};  // single-hop: the partner's MAC (micro-BFD: 01-00-5E-90-00-01)
};

struct BfdConfig {
  BfdMode mode = BfdMode::kOff;
  std::uint32_t desired_min_tx_ms = bfd::kDefaultDesiredMinTxUs / 1000;
  std::uint32_t required_min_rx_ms = bfd::kDefaultRequiredMinRxUs / 1000;
  std::uint8_t detect_mult = bfd::kDefaultDetectMult;
  std::vector<BfdMemberConfig> members;  // in the bond's member order; empty when off
};

const char* to_string(BfdMode mode);  // "off", "micro", "single-hop"
// "10.0.0.1" or "2001:db8::1"; false when it is neither.
bool parse_ip(const std::string& text, bfd::IpAddress& out);
std::string ip_text(const bfd::IpAddress& ip);

}  // namespace braid::config
