// LLDP on a bond's members (IEEE 802.1AB, doc/health.md "LLDP"): one lldp::Agent per member,
// driven by the protocol loop's deadlines like the LACP timers. What each member announces
// (chassis id: the bond's MAC, as LACP's System ID; port id: the member's name; TTL; system
// name and description; port description; the link aggregation TLV), what it hears (frames the
// workers divert over the slow ring), and the bond's cabling check over every member's table,
// logged when a finding comes or goes. No DPDK: frames go out through `send` (the member's
// control TX queue) and time is the caller's `now_ns`.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bytes.hpp"
#include "common/token_bucket.hpp"
#include "config/lldp_settings.hpp"
#include "lldp/agent.hpp"
#include "lldp/cabling.hpp"

namespace braid::bond {

inline constexpr std::string_view kDefaultLldpSystemDescription = "braid DPDK bonding data plane";
// The cabling check runs when a table changes and at least this often (a member turns
// `silent` when its grace period ends, with no frame to mark the moment).
inline constexpr std::uint64_t kCablingCheckIntervalNs = 1'000'000'000;
// The protocol loop's own limit per member, behind the workers' (bond_datapath.hpp): with a few
// workers each passing 16 a second, LLDPDUs still cost the loop a bounded share.
inline constexpr std::uint64_t kLldpLoopFramesPerSecond = 32;
inline constexpr std::uint64_t kLldpLoopFramesBurst = 64;

struct LldpMemberIdentity {
  std::string name;        // the member's port name: its Port ID (interface name, subtype 5)
  lldp::MacAddress mac{};  // the port's own address: the frames' source
};

struct LldpMemberCounters {
  std::uint64_t tx_failed = 0;     // frames the member's control TX queue refused
  std::uint64_t tx_link_down = 0;  // frames not sent: the link was down (a shutdown LLDPDU)
  std::uint64_t policed = 0;       // received over the protocol loop's limit, dropped
};

inline constexpr std::size_t kFindingKinds = 4;  // lldp::FindingKind

struct LldpFindingCounters {
  std::uint64_t raised = 0;   // findings that appeared (each counted once until it clears)
  std::uint64_t cleared = 0;  // ... and went
};

class BondLldp {
 public:
  using Send = std::function<bool(std::size_t member, ByteSpan frame)>;
  using Log = std::function<void(std::uint64_t now_ns, std::string text)>;

  // `chassis_mac`: the bond's MAC; `aggregation_capable`: the bond aggregates (lacp, static);
  // `aggregation_port_id`: the bond's number, announced as the aggregated port id.
  BondLldp(const config::LldpSettings& settings, const std::string& bond_name,
           const lldp::MacAddress& chassis_mac, bool aggregation_capable,
           std::uint32_t aggregation_port_id, std::vector<LldpMemberIdentity> members, Send send,
           Log log);

  // Member m's link: up starts its agent (802.1AB portEnabled), down stops it and forgets what
  // it heard.
  void set_link(std::size_t m, bool up, std::uint64_t now_ns);
  // Whether member m is in the aggregation now: its link aggregation TLV's status (a change is
  // announced at once, credit permitting).
  void set_aggregated(std::size_t m, bool aggregated, std::uint64_t now_ns);
  // Member m's LACP partner System ID (nullopt: none), for the cabling check.
  void set_lacp_partner(std::size_t m, std::optional<lldp::LacpSystemId> partner);
  void on_frame(std::size_t m, ByteSpan frame, std::uint64_t now_ns);
  // Sends what is due, ages the tables, runs the cabling check; returns the next deadline.
  std::uint64_t poll(std::uint64_t now_ns);
  // braid stops: a shutdown LLDPDU (TTL 0) on every running member, so neighbours forget us now
  // instead of after our TTL (802.1AB 9.2.9).
  void stop_all(std::uint64_t now_ns);

  std::size_t member_count() const { return members_.size(); }
  const std::string& member_name(std::size_t m) const { return members_[m].identity.name; }
  const lldp::Agent& agent(std::size_t m) const { return members_[m].agent; }
  const LldpMemberCounters& counters(std::size_t m) const { return members_[m].counters; }
  bool link_up(std::size_t m) const { return members_[m].link_up; }
  // When member m's agent last started (0: never).
  std::uint64_t started_ns(std::size_t m) const { return members_[m].started_ns; }
  const std::vector<lldp::Finding>& findings() const { return findings_; }
  const LldpFindingCounters& finding_counters(lldp::FindingKind kind) const {
    return finding_counters_[static_cast<std::size_t>(kind)];
  }
  const std::string& system_name() const { return system_name_; }
  const lldp::Id& chassis_id() const { return chassis_id_; }
  std::uint16_t ttl_s() const { return members_.front().agent.ttl_s(); }
  const config::LldpSettings& settings() const { return settings_; }

 private:
  struct Member {
    Member(LldpMemberIdentity who, const lldp::AgentConfig& config)
        : identity(std::move(who)), agent(config, {}) {}
    LldpMemberIdentity identity;
    lldp::Agent agent;
    LldpMemberCounters counters;
    TokenBucket policer{kLldpLoopFramesPerSecond, 1'000'000'000, kLldpLoopFramesBurst};
    bool link_up = false;
    bool aggregated = false;
    std::optional<lldp::LacpSystemId> lacp_partner;
    std::uint64_t started_ns = 0;
  };

  lldp::Lldpdu local_for(const Member& member) const;
  void send_due(std::size_t m, std::uint64_t now_ns);
  void check_cabling(std::uint64_t now_ns);

  config::LldpSettings settings_;
  std::string bond_name_;
  lldp::Id chassis_id_;
  std::string system_name_;
  std::string system_description_;
  bool aggregation_capable_;
  std::uint32_t aggregation_port_id_;
  std::vector<Member> members_;
  Send send_;
  Log log_;
  std::vector<lldp::Finding> findings_;
  std::array<LldpFindingCounters, kFindingKinds> finding_counters_{};
  bool check_due_ = true;
  std::uint64_t next_check_ns_ = 0;
};

}  // namespace braid::bond
