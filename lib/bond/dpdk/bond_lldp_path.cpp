// The bond's LLDP path on the protocol loop (doc/health.md "LLDP"): one agent per member
// (BondLldp), fed the LLDPDUs the workers divert over the slow ring, sending on each member's
// control TX queue, and told what the bond knows: links, which members aggregate, and LACP's
// partner on each.
#include <rte_mbuf.h>

#include <cstring>

#include "bond/dpdk/bond.hpp"
#include "port/slow_protocols.hpp"

namespace braid::bond {
namespace {

lldp::MacAddress to_lldp_mac(const rte_ether_addr& mac) {
  lldp::MacAddress out{};
  std::memcpy(out.data(), mac.addr_bytes, out.size());
  return out;
}

}  // namespace

void Bond::create_lldp() {
  std::vector<LldpMemberIdentity> identities;
  for (const Member& member : members_)
    identities.push_back({member.port->name(), to_lldp_mac(member.own_mac)});
  lldp_ = std::make_unique<BondLldp>(
      config_.lldp, config_.name, to_lldp_mac(mac_),
      config_.mode != config::BondMode::kActiveBackup, context_.number, std::move(identities),
      [this](std::size_t member, ByteSpan frame) { return send_control_frame(member, frame); },
      [this](std::uint64_t now_ns, std::string text) { log(now_ns, std::move(text)); });
  shared_.lldp = true;
}

bool Bond::on_lldp_frame(std::size_t member, const rte_mbuf* frame, std::uint64_t now_ns) {
  if (!lldp_ || !drivers::is_lldp(frame)) return false;
  ++counters_.lldp_rx;
  if (member >= members_.size()) {
    ++counters_.slow_frames_ignored;
    return true;
  }
  lldp_->on_frame(member, ByteSpan(rte_pktmbuf_mtod(frame, const std::uint8_t*), frame->data_len),
                  now_ns);
  return true;
}

std::uint64_t Bond::run_lldp(std::uint64_t now_ns) {
  const BondTable* table = tables_.current();
  for (std::size_t m = 0; m < members_.size(); ++m) {
    // In the aggregation: the member carries the bond's traffic (802.1AX: collecting and
    // distributing).
    lldp_->set_aggregated(m, table != nullptr && table->distributing[m] && table->collecting[m],
                          now_ns);
    std::optional<lldp::LacpSystemId> partner;
    if (lacp_ && lacp_->system().port(m).partnered()) {
      const lacp::PortInfo& info = lacp_->system().port(m).partner;
      partner = lldp::LacpSystemId{info.system_priority, info.system};
    }
    lldp_->set_lacp_partner(m, partner);
  }
  return lldp_->poll(now_ns);
}

}  // namespace braid::bond
