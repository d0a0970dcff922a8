#include "config/bfd_config.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <optional>

#include "config/bfd_config_loader.hpp"
#include "config/config_validate.hpp"

namespace braid::config {
namespace {

// RFC 5880 6.8.3 takes any interval; braid's protocol loop keeps 10 ms (bfd::kMinIntervalUs).
constexpr std::uint64_t kMinIntervalMs = bfd::kMinIntervalUs / 1000;
constexpr std::uint64_t kMaxIntervalMs = 60'000;

struct Addresses {
  std::optional<bfd::IpAddress> local_ip;
  std::optional<bfd::IpAddress> remote_ip;
  std::optional<bfd::MacAddress> remote_mac;
};

std::optional<bfd::IpAddress> read_ip(const YamlReader& in, const YAML::Node& node,
                                      const std::string& key, const std::string& where) {
  if (!node[key].IsDefined()) return std::nullopt;
  const std::string text = in.scalar(node[key], where + "." + key);
  bfd::IpAddress ip;
  if (!parse_ip(text, ip)) {
    in.fail(node[key], where + "." + key,
            "expected an IPv4 or IPv6 address like 10.0.0.1 or 2001:db8::1, got \"" + text + "\"");
  }
  return ip;
}

Addresses read_addresses(const YamlReader& in, const YAML::Node& node, const std::string& where) {
  Addresses out;
  out.local_ip = read_ip(in, node, "local_ip", where);
  out.remote_ip = read_ip(in, node, "remote_ip", where);
  if (node["remote_mac"].IsDefined()) {
    const std::string text = in.scalar(node["remote_mac"], where + ".remote_mac");
    bfd::MacAddress mac{};
    if (!is_unicast_mac(text) || !parse_mac(text, mac)) {
      in.fail(node["remote_mac"], where + ".remote_mac",
              "expected the partner's unicast MAC like 02:00:00:00:00:02, got \"" + text + "\"");
    }
    out.remote_mac = mac;
  }
  return out;
}

}  // namespace

const char* to_string(BfdMode mode) {
  switch (mode) {
    case BfdMode::kMicro:
      return "micro";
    case BfdMode::kSingleHop:
      return "single-hop";
    default:
      return "off";
  }
}

bool parse_ip(const std::string& text, bfd::IpAddress& out) {
  std::array<std::uint8_t, 16> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) {
    out = bfd::IpAddress{};
    std::copy_n(bytes.begin(), 4, out.bytes.begin());
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1) {
    out = bfd::IpAddress::v6(bytes);
    return true;
  }
  return false;
}

std::string ip_text(const bfd::IpAddress& ip) {
  char text[INET6_ADDRSTRLEN] = "";
  inet_ntop(ip.ipv6 ? AF_INET6 : AF_INET, ip.bytes.data(), text, sizeof text);
  return text;
}

BfdConfig read_bfd(const YamlReader& in, const YAML::Node& node, const std::string& where,
                   const std::vector<std::string>& members) {
  in.expect_map(node, where,
                {"mode", "desired_min_tx_ms", "required_min_rx_ms", "detect_mult", "local_ip",
                 "remote_ip", "members"});
  BfdConfig bfd;
  const std::string mode = in.get_string(node, "mode", where, "off");
  if (mode == "micro") {
    bfd.mode = BfdMode::kMicro;
  } else if (mode == "single-hop") {
    bfd.mode = BfdMode::kSingleHop;
  } else if (mode != "off") {
    in.fail(node["mode"], where + ".mode",
            "unknown mode \"" + mode + "\" (known: off, micro, single-hop)");
  }
  bfd.desired_min_tx_ms = static_cast<std::uint32_t>(in.get_uint(
      node, "desired_min_tx_ms", where, kMinIntervalMs, kMaxIntervalMs, bfd.desired_min_tx_ms));
  bfd.required_min_rx_ms = static_cast<std::uint32_t>(in.get_uint(
      node, "required_min_rx_ms", where, kMinIntervalMs, kMaxIntervalMs, bfd.required_min_rx_ms));
  bfd.detect_mult =
      static_cast<std::uint8_t>(in.get_uint(node, "detect_mult", where, 1, 255, bfd.detect_mult));
  const Addresses bond_wide = read_addresses(in, node, where);
  if (bond_wide.remote_mac) in.fail(node, where, "remote_mac is per member (members.NAME)");
  std::vector<Addresses> own(members.size());
  if (const YAML::Node per_member = node["members"]; per_member.IsDefined()) {
    if (!per_member.IsMap()) in.fail(per_member, where + ".members", "expected a map of members");
    for (const auto& entry : per_member) {
      const std::string name = in.scalar(entry.first, where + ".members");
      const std::string at = where + ".members." + name;
      std::size_t index = 0;
      while (index < members.size() && members[index] != name)
        ++index;
      if (index == members.size()) {
        std::string known;
        for (const std::string& member : members)
          known += (known.empty() ? "" : ", ") + member;
        in.fail(entry.first, at,
                "\"" + name + "\" is not a member of this bond (members: " + known + ")");
      }
      in.expect_map(entry.second, at, {"local_ip", "remote_ip", "remote_mac"});
      own[index] = read_addresses(in, entry.second, at);
      if (own[index].remote_mac && bfd.mode == BfdMode::kMicro) {
        in.fail(entry.second["remote_mac"], at + ".remote_mac",
                "micro-BFD always sends to 01-00-5E-90-00-01 (RFC 7130 2.3); remote_mac is for "
                "mode single-hop");
      }
    }
  }
  if (bfd.mode == BfdMode::kOff) return bfd;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::string at = where + ".members." + members[m];
    BfdMemberConfig member;
    member.member = members[m];
    const std::optional<bfd::IpAddress> local =
        own[m].local_ip ? own[m].local_ip : bond_wide.local_ip;
    const std::optional<bfd::IpAddress> remote =
        own[m].remote_ip ? own[m].remote_ip : bond_wide.remote_ip;
    if (!local || !remote) {
      in.fail(node, at,
              std::string("member ") + members[m] + " has no " +
                  (local ? "remote_ip" : "local_ip") + ": set " + where + "." +
                  (local ? "remote_ip" : "local_ip") + " or " + at + "." +
                  (local ? "remote_ip" : "local_ip"));
    }
    if (local->ipv6 != remote->ipv6) {
      in.fail(node, at,
              "local_ip " + ip_text(*local) + " and remote_ip " + ip_text(*remote) +
                  " differ in family");
    }
    if (*local == *remote) in.fail(node, at, "local_ip and remote_ip are the same address");
    member.local_ip = *local;
    member.remote_ip = *remote;
    if (bfd.mode == BfdMode::kSingleHop) {
      if (!own[m].remote_mac) {
        in.fail(node, at,
                "mode single-hop needs the partner's MAC: set " + at +
                    ".remote_mac (braid resolves no neighbours)");
      }
      member.remote_mac = *own[m].remote_mac;
    }
    bfd.members.push_back(member);
  }
  return bfd;
}

}  // namespace braid::config
