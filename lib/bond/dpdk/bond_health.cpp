#include "bond/dpdk/bond_health.hpp"

#include <rte_ethdev.h>

#include <algorithm>

#include "linkemu/link_registry.hpp"
#include "log/log_types.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::bond {

BondHealth::BondHealth(const config::BondConfig& config,
                       const std::vector<drivers::EthdevPort*>& ports, BondEventLog& events)
    : bond_name_(config.name),
      xstats_(health::xstat_names(config.health.xstats, config.health.xstats_set)),
      events_(&events) {
  for (drivers::EthdevPort* port : ports) {
    Member member;
    member.port = port;
    member.health = std::make_unique<health::MemberHealth>(config.health.settings);
    member.sources = std::make_unique<MemberHealthSources>(*port, members_.size(), config);
    members_.push_back(std::move(member));
  }
}

health::CounterSnapshot BondHealth::read_counters(std::size_t m) const {
  const std::uint16_t port_id = members_[m].port->id();
  health::EthdevCounters counters;
  const drivers::CounterReadLock reading(port_id, drivers::CounterReadLock::Wait::kYes);
  linkemu::emulate_counter_read(port_id);  // an emulated NIC whose reads block (no-op otherwise)
  rte_eth_stats stats{};
  counters.stats_ok = drivers::read_port_stats_held(port_id, stats) == 0;
  counters.ipackets = stats.ipackets;
  counters.ierrors = stats.ierrors;
  counters.imissed = stats.imissed;
  counters.rx_nombuf = stats.rx_nombuf;
  counters.xstats = drivers::read_ethdev_xstats_held(port_id);
  // An emulated link's injected FCS errors (drivers/linkemu/rx_errors.hpp), as a NIC's xstat.
  if (const std::optional<std::uint64_t> injected = linkemu::injected_crc_errors(port_id))
    counters.xstats.emplace_back("rx_crc_errors", *injected);
  health::CounterSnapshot snapshot = health::ethdev_snapshot(counters, xstats_);
  members_[m].sources->overlay(snapshot);
  return snapshot;
}

bool BondHealth::update(std::size_t m, const HealthFacts& facts, std::uint64_t now_ns,
                        std::optional<health::CounterSnapshot> counters) {
  Member& member = members_[m];
  const std::uint32_t before = member.health->weight_permille();
  health::HealthInputs inputs;
  inputs.carrier = facts.carrier;
  inputs.bfd = member.bfd;
  inputs.pfc_storm = facts.pfc_storm;
  inputs.counters = std::move(counters);
  // Signals whose counters the member's source lacks (or regained): one line per update, in the
  // log only; state changes, flaps and verdicts go to the bond's events too (show bond).
  std::string unavailable;
  std::string available;
  const std::string& name = member.port->name();
  for (const health::HealthEvent& event : member.health->update(inputs, now_ns)) {
    const char* signal = health::to_string(event.evidence.signal);
    if (event.kind == health::EventKind::kSignalUnavailable) {
      unavailable += std::string(unavailable.empty() ? "" : ", ") + signal;
    } else if (event.kind == health::EventKind::kSignalAvailable) {
      available += std::string(available.empty() ? "" : ", ") + signal;
    } else {
      events_->log(now_ns, "member " + name + " health: " + health::to_string(event));
    }
  }
  if (!unavailable.empty()) {
    BRAID_LOG_TO(kBond, INFO, "bond %s: member %s health: no counters for %s (unavailable)\n",
                 bond_name_.c_str(), name.c_str(), unavailable.c_str());
  }
  if (!available.empty()) {
    BRAID_LOG_TO(kBond, INFO, "bond %s: member %s health: counters again for %s\n",
                 bond_name_.c_str(), name.c_str(), available.c_str());
  }
  return member.health->weight_permille() != before;
}

bool BondHealth::update_all(std::uint64_t now_ns, const FactsOf& facts) {
  bool changed = false;
  for (std::size_t m = 0; m < members_.size(); ++m)
    changed |= update(m, facts(m), now_ns);
  return changed;
}

// On the helper (SlowReads) when there is one: members_ and each member's port and sources are
// fixed once built, and only this read uses the sources.
std::vector<health::CounterSnapshot> BondHealth::read_all_counters() const {
  std::vector<health::CounterSnapshot> all;
  for (std::size_t m = 0; m < members_.size(); ++m)
    all.push_back(read_counters(m));
  return all;
}

bool BondHealth::update_sampled(std::uint64_t now_ns, const FactsOf& facts,
                                const ExtraSignals& extra,
                                std::vector<health::CounterSnapshot> counters) {
  bool changed = false;
  for (std::size_t m = 0; m < members_.size() && m < counters.size(); ++m) {
    extra(m, counters[m]);
    changed |= update(m, facts(m), now_ns, counters[m]);
  }
  return changed;
}

bool BondHealth::run(std::uint64_t now_ns, const FactsOf& facts, const ExtraSignals& extra) {
  bool changed = false;
  if (std::optional<std::vector<health::CounterSnapshot>> read = pending_.take())
    changed = update_sampled(now_ns, facts, extra, std::move(*read));
  if (now_ns >= next_sample_ns_) {
    next_sample_ns_ = now_ns + kSampleIntervalNs;
    if (reads_ == nullptr) return update_sampled(now_ns, facts, extra, read_all_counters());
    // A read still under way (it took over a second) makes this tick's the one it brings.
    pending_.start(
        *reads_, "health counters", [this] { return read_all_counters(); }, loop_);
    return changed;
  }
  const bool due = std::any_of(members_.begin(), members_.end(), [now_ns](const Member& member) {
    const std::optional<std::uint64_t> deadline = member.health->next_deadline_ns();
    return deadline && *deadline <= now_ns;
  });
  return (due && update_all(now_ns, facts)) || changed;
}

std::uint64_t BondHealth::next_deadline_ns() const {
  std::uint64_t next = next_sample_ns_;
  for (const Member& member : members_) {
    if (const std::optional<std::uint64_t> deadline = member.health->next_deadline_ns())
      next = std::min(next, *deadline);
  }
  return next;
}

bool BondHealth::set_bfd(std::size_t m, health::BfdStatus status) {
  if (members_.at(m).bfd == status) return false;
  members_[m].bfd = status;
  return true;
}

}  // namespace braid::bond
