#include "bond/dpdk/bond_lacp.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <algorithm>

#include "common/clock.hpp"
#include "lacp/constants.hpp"
#include "log/log_types.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::bond {
namespace {

// Fallback needs proof that the far end is alive (config.hpp): frames arriving on the member,
// read this often, only where fallback is configured.
constexpr std::uint64_t kNeighbourCheckIntervalNs = 1'000'000'000;

}  // namespace

BondLacp::BondLacp(const config::BondConfig& config, const lacp::MacAddress& system_mac,
                   const std::vector<lacp::MacAddress>& port_macs,
                   std::vector<drivers::EthdevPort*> ports, const MemberLinks& links, Send send,
                   BondEventLog& events, LateDeadlines& late, BondCounters& counters,
                   std::uint64_t now_ns)
    : config_(&config),
      ports_(std::move(ports)),
      links_(&links),
      send_(send),
      events_(&events),
      late_(&late),
      counters_(&counters),
      goodbyes_(ports_.size()),
      rx_packets_seen_(ports_.size(), 0),
      fallback_(ports_.size(), lacp::FallbackState::kOff) {
  lacp::SystemConfig system;
  system.system_priority = config.lacp.system_priority;
  system.system_mac = system_mac;
  std::vector<lacp::PortConfig> port_configs;
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    lacp::PortConfig port;
    port.port_number = static_cast<std::uint16_t>(m + 1);
    port.port_priority = config.lacp.port_priority;
    port.port_mac = port_macs.at(m);
    port.key = config.lacp.key;
    port.activity = config.lacp.active ? lacp::LacpActivity::kActive : lacp::LacpActivity::kPassive;
    port.timeout = config.lacp.fast ? lacp::LacpTimeout::kShort : lacp::LacpTimeout::kLong;
    port.aggregate_wait_ns = std::uint64_t{config.lacp.aggregate_wait_ms} * 1'000'000;
    port.fallback = config.lacp.fallback;
    port_configs.push_back(port);
  }
  system_ = std::make_unique<lacp::LacpSystem>(system, port_configs, std::move(send), now_ns);
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    rte_eth_stats stats{};
    if (drivers::read_port_stats(ports_[m]->id(), stats) == 0) rx_packets_seen_[m] = stats.ipackets;
  }
}

void BondLacp::run(std::uint64_t now_ns) {
  send_pending_goodbyes(now_ns);
  observe_neighbours(now_ns);
  if (now_ns >= system_->next_deadline_ns()) {
    const std::uint64_t periodic = system_->next_periodic_ns();
    if (now_ns >= periodic) late_->note(DeadlineKind::kLacpPeriodic, periodic, now_ns);
    const std::uint64_t expiry = system_->next_expiry_ns();
    if (now_ns >= expiry) late_->note(DeadlineKind::kLacpExpiry, expiry, now_ns);
    system_->tick(now_ns);
  }
  log_fallback_changes(now_ns);
}

std::uint64_t BondLacp::next_deadline_ns(std::uint64_t now_ns) const {
  std::uint64_t next = system_->next_deadline_ns();
  if (config_->lacp.fallback) next = std::min(next, next_neighbour_check_ns_);
  if (goodbyes_pending()) next = std::min(next, now_ns + lacp::kTxRetryTime);
  return next;
}

void BondLacp::observe_neighbours(std::uint64_t now_ns) {
  if (!config_->lacp.fallback || now_ns < next_neighbour_check_ns_) return;
  next_neighbour_check_ns_ = now_ns + kNeighbourCheckIntervalNs;
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    rte_eth_stats stats{};
    if (drivers::read_port_stats(ports_[m]->id(), stats) != 0) continue;
    if (stats.ipackets != rx_packets_seen_[m]) system_->on_neighbour_frames(m, now_ns);
    rx_packets_seen_[m] = stats.ipackets;
  }
}

void BondLacp::log_fallback_changes(std::uint64_t now_ns) {
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    const lacp::FallbackState state = system_->fallback(m);
    if (state == fallback_[m]) continue;
    const bool engaged = state == lacp::FallbackState::kEngaged;
    const bool was_engaged = fallback_[m] == lacp::FallbackState::kEngaged;
    fallback_[m] = state;
    if (engaged) {
      BRAID_LOG_TO(kBond, WARNING,
                   "bond %s: member %s: LACP fallback engaged: no LACPDU for %.0f s and frames "
                   "from the far end; it carries traffic as an individual link, unchecked by "
                   "any partner (lacp.fallback, doc/lacp.md)\n",
                   config_->name.c_str(), ports_[m]->name().c_str(),
                   static_cast<double>(lacp::kLongTimeoutTime) / 1e9);
    }
    if (engaged || was_engaged)
      events_->log(now_ns,
                   "member " + ports_[m]->name() + " LACP fallback " + lacp::to_string(state));
  }
}

void BondLacp::set_enabled(std::size_t m, bool enabled, std::uint64_t now_ns) {
  const MemberLink& link = links_->link(m);
  system_->on_link(m, enabled, link.speed_mbps, link.full_duplex, now_ns);
}

void BondLacp::say_goodbye(std::size_t m, std::uint64_t now_ns) {
  if (!links_->up(m)) return;
  goodbyes_.at(m) = system_->goodbye_frame(m);
  send_pending_goodbyes(now_ns);
}

void BondLacp::send_pending_goodbyes(std::uint64_t now_ns) {
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    std::optional<lacp::SlowFrame>& goodbye = goodbyes_[m];
    if (!goodbye) continue;
    if (!links_->up(m)) {
      goodbye.reset();  // the link went down: the partner knows
      continue;
    }
    if (!send_(m, ByteSpan(*goodbye))) continue;  // next poll
    goodbye.reset();
    system_->goodbye_sent(m, now_ns);
    ++counters_->goodbye_tx;
    events_->log(now_ns, "member " + ports_[m]->name() + ": goodbye LACPDU sent (out of sync)");
  }
}

bool BondLacp::goodbyes_pending() const {
  return std::any_of(
      goodbyes_.begin(), goodbyes_.end(),
      [](const std::optional<lacp::SlowFrame>& goodbye) { return goodbye.has_value(); });
}

void BondLacp::leave(std::uint64_t now_ns, std::uint64_t patience_ns,
                     const std::function<bool(std::size_t m)>& leaving) {
  for (std::size_t m = 0; m < ports_.size(); ++m) {
    if (leaving(m)) goodbyes_[m] = system_->goodbye_frame(m);
  }
  const std::uint64_t until = now_ns + patience_ns;
  for (std::uint64_t now = now_ns;; now = monotonic_ns()) {
    send_pending_goodbyes(now);
    if (!goodbyes_pending() || now >= until) break;
    rte_delay_us_sleep(100);
  }
}

void BondLacp::set_rate(bool fast, std::uint64_t now_ns) {
  for (std::size_t m = 0; m < ports_.size(); ++m)
    system_->set_timeout(m, fast ? lacp::LacpTimeout::kShort : lacp::LacpTimeout::kLong, now_ns);
  events_->log(now_ns, std::string("LACP rate ") + (fast ? "fast" : "slow"));
}

health::CounterSample BondLacp::lacpdu_sample(std::size_t m,
                                              health::PeriodicExpectation& expectation,
                                              std::uint64_t now_ns) const {
  const lacp::Port& port = system_->port(m);
  // The partner's Periodic Transmission machine (802.1AX-2014 6.4.13) sends at the rate our
  // Timeout bit asks for, unless both ends are Passive; a Defaulted actor has no partner.
  const bool owes = links_->up(m) && port.partnered() &&
                    (lacp::has_bit(port.actor.state, lacp::state_bit::kActivity) ||
                     lacp::has_bit(port.partner.state, lacp::state_bit::kActivity));
  const std::uint64_t period_ns = lacp::has_bit(port.actor.state, lacp::state_bit::kTimeout)
                                      ? lacp::kFastPeriodicTime
                                      : lacp::kSlowPeriodicTime;
  return expectation.sample(now_ns, owes ? std::optional(period_ns) : std::nullopt,
                            system_->counters(m).lacpdu_rx);
}

}  // namespace braid::bond
