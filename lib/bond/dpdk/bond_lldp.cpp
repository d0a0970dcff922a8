#include "bond/dpdk/bond_lldp.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>

namespace braid::bond {
namespace {

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "braid";
  return name;
}

lldp::AgentConfig agent_config(const config::LldpSettings& settings,
                               const LldpMemberIdentity& identity) {
  lldp::AgentConfig config;
  config.source_mac = identity.mac;
  config.tx_interval_s = settings.tx_interval_s;
  config.tx_hold = settings.tx_hold;
  return config;
}

// A finding is its kind and its members; its text may change while it stands (a silent
// member's time, a neighbour's name) without being raised again.
bool same_findings(const lldp::Finding& a, const lldp::Finding& b) {
  return a.kind == b.kind && a.members == b.members;
}

bool contains(const std::vector<lldp::Finding>& findings, const lldp::Finding& finding) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const lldp::Finding& f) { return same_findings(f, finding); });
}

}  // namespace

BondLldp::BondLldp(const config::LldpSettings& settings, const std::string& bond_name,
                   const lldp::MacAddress& chassis_mac, bool aggregation_capable,
                   std::uint32_t aggregation_port_id, std::vector<LldpMemberIdentity> members,
                   Send send, Log log)
    : settings_(settings),
      bond_name_(bond_name),
      chassis_id_(lldp::chassis_mac(chassis_mac)),
      system_name_(settings.system_name.empty() ? host_name() : settings.system_name),
      system_description_(settings.system_description.empty()
                              ? std::string(kDefaultLldpSystemDescription)
                              : settings.system_description),
      aggregation_capable_(aggregation_capable),
      aggregation_port_id_(aggregation_port_id),
      send_(std::move(send)),
      log_(std::move(log)) {
  // A host name over 255 octets cannot be announced (8.5.6): cut, as lldpd does.
  if (system_name_.size() > lldp::kMaxStringLen) system_name_.resize(lldp::kMaxStringLen);
  for (LldpMemberIdentity& identity : members) {
    const lldp::AgentConfig config = agent_config(settings, identity);
    members_.emplace_back(std::move(identity), config);
    members_.back().agent.set_local(local_for(members_.back()), 0);
  }
}

// What member m announces (802.1AB 8.2 mandatory TLVs, then 8.5.5-8.5.8 and the link
// aggregation TLV of 802.1AX-2014 / 802.3 79.3.3).
lldp::Lldpdu BondLldp::local_for(const Member& member) const {
  lldp::Lldpdu local;
  local.chassis_id = chassis_id_;
  local.port_id = lldp::port_interface_name(member.identity.name);
  local.port_description = "member " + member.identity.name + " of bond " + bond_name_;
  local.system_name = system_name_;
  local.system_description = system_description_;
  local.capabilities = lldp::Capabilities{lldp::kCapabilityStation, lldp::kCapabilityStation};
  lldp::LinkAggregation aggregation;
  aggregation.capable = aggregation_capable_;
  aggregation.enabled = aggregation_capable_ && member.aggregated;
  aggregation.aggregated_port_id = aggregation.enabled ? aggregation_port_id_ : 0;
  local.org_specific.push_back(lldp::encode_link_aggregation(aggregation));
  return local;
}

void BondLldp::set_link(std::size_t m, bool up, std::uint64_t now_ns) {
  Member& member = members_.at(m);
  if (member.link_up == up) return;
  member.link_up = up;
  if (up) {
    member.agent.start(now_ns);
    member.started_ns = now_ns;
  } else {
    member.agent.stop(now_ns);
  }
  check_due_ = true;
}

void BondLldp::set_aggregated(std::size_t m, bool aggregated, std::uint64_t now_ns) {
  Member& member = members_.at(m);
  if (member.aggregated == aggregated) return;
  member.aggregated = aggregated;
  member.agent.set_local(local_for(member), now_ns);
}

void BondLldp::set_lacp_partner(std::size_t m, std::optional<lldp::LacpSystemId> partner) {
  Member& member = members_.at(m);
  if (member.lacp_partner == partner) return;
  member.lacp_partner = partner;
  check_due_ = true;
}

void BondLldp::on_frame(std::size_t m, ByteSpan frame, std::uint64_t now_ns) {
  Member& member = members_.at(m);
  if (!member.policer.take(now_ns)) {
    ++member.counters.policed;
    return;
  }
  member.agent.on_frame(frame, now_ns);
  if (member.agent.take_changed()) check_due_ = true;
}

void BondLldp::send_due(std::size_t m, std::uint64_t now_ns) {
  Member& member = members_[m];
  // A frame the queue refuses is not retried: the next one is at most msgTxInterval away, and
  // a neighbour keeps our information for TTL (4 intervals).
  while (std::optional<std::vector<std::uint8_t>> frame = member.agent.poll(now_ns)) {
    if (!member.link_up) {
      ++member.counters.tx_link_down;
      continue;
    }
    if (!send_(m, ByteSpan(*frame))) ++member.counters.tx_failed;
  }
}

std::uint64_t BondLldp::poll(std::uint64_t now_ns) {
  std::uint64_t next = lldp::Agent::kNever;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Member& member = members_[m];
    if (member.agent.next_deadline_ns() <= now_ns) send_due(m, now_ns);
    if (member.agent.take_changed()) check_due_ = true;
    next = std::min(next, member.agent.next_deadline_ns());
  }
  if (check_due_ || now_ns >= next_check_ns_) check_cabling(now_ns);
  return std::min(next, next_check_ns_);
}

void BondLldp::stop_all(std::uint64_t now_ns) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    members_[m].agent.stop(now_ns);
    send_due(m, now_ns);
  }
}

void BondLldp::check_cabling(std::uint64_t now_ns) {
  check_due_ = false;
  next_check_ns_ = now_ns + kCablingCheckIntervalNs;
  std::vector<lldp::MemberCabling> cabling;
  for (const Member& member : members_) {
    // A member whose link is down is not cabled to anything we could check.
    if (!member.link_up) continue;
    lldp::MemberCabling& c = cabling.emplace_back();
    c.member = member.identity.name;
    for (const lldp::Neighbour& neighbour : member.agent.neighbours())
      c.neighbours.push_back(lldp::heard(neighbour));
    c.lacp_partner = member.lacp_partner;
    c.listening_ns = member.agent.running() ? now_ns - member.started_ns : 0;
  }
  std::vector<lldp::Finding> findings =
      lldp::check_cabling(cabling, std::uint64_t{settings_.silent_grace_s} * lldp::kNsPerSecond);
  for (const lldp::Finding& finding : findings) {
    if (contains(findings_, finding)) continue;
    ++finding_counters_[static_cast<std::size_t>(finding.kind)].raised;
    log_(now_ns, "LLDP cabling: " + finding.text);
  }
  for (const lldp::Finding& finding : findings_) {
    if (contains(findings, finding)) continue;
    ++finding_counters_[static_cast<std::size_t>(finding.kind)].cleared;
    log_(now_ns, "LLDP cabling: cleared: " + finding.text);
  }
  findings_ = std::move(findings);
}

}  // namespace braid::bond
