#include "bond/dpdk/bond_metrics.hpp"

#include <rte_ethdev.h>

#include <string_view>
#include <vector>

#include "bond/dpdk/bond.hpp"
#include "bond/dpdk/bond_readiness.hpp"
#include "lacp/port.hpp"
#include "lacp/snapshot.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::bond {
namespace {

// One sample per member of every bond, labelled {bond, member}.
template <typename ValueOf>
void member_samples(control::MetricWriter& w, const std::vector<Bond*>& bonds, ValueOf value_of) {
  for (Bond* bond : bonds) {
    for (const MemberStatus& m : bond->members()) {
      w.sample({{"bond", bond->name()}, {"member", m.name}}, std::uint64_t{value_of(m)});
    }
  }
}

// One sample per member of every LACP bond, from its LACP snapshot.
template <typename ValueOf>
void lacp_port_samples(control::MetricWriter& w, const std::vector<Bond*>& bonds,
                       ValueOf value_of) {
  for (Bond* bond : bonds) {
    const lacp::LacpSystem* system = bond->lacp();
    if (system == nullptr) continue;
    const lacp::SystemSnapshot snapshot = system->snapshot();
    const std::vector<MemberStatus> members = bond->members();
    for (std::size_t p = 0; p < snapshot.ports.size() && p < members.size(); ++p) {
      w.sample({{"bond", bond->name()}, {"member", members[p].name}},
               std::uint64_t{value_of(snapshot.ports[p])});
    }
  }
}

// Packets and bytes per member and direction, from one rte_eth_stats read per member.
void member_traffic_samples(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  struct Row {
    control::Labels labels;
    rte_eth_stats stats{};
  };
  std::vector<Row> rows;
  for (Bond* bond : bonds) {
    for (const MemberStatus& m : bond->members()) {
      Row& row = rows.emplace_back();
      row.labels = {{"bond", bond->name()}, {"member", m.name}};
      drivers::read_port_stats(m.port_id, row.stats);
    }
  }
  struct Family {
    const char* name;
    const char* help;
    std::uint64_t rte_eth_stats::*field;
  };
  static constexpr Family kFamilies[] = {
      {"braid_member_rx_packets_total", "packets the member's port received",
       &rte_eth_stats::ipackets},
      {"braid_member_tx_packets_total", "packets the member's port sent", &rte_eth_stats::opackets},
      {"braid_member_rx_bytes_total", "bytes the member's port received", &rte_eth_stats::ibytes},
      {"braid_member_tx_bytes_total", "bytes the member's port sent", &rte_eth_stats::obytes},
  };
  for (const Family& family : kFamilies) {
    w.family(family.name, family.help, control::MetricType::kCounter);
    for (const Row& row : rows)
      w.sample(row.labels, row.stats.*family.field);
  }
}

// The member's LACP mux machine state (802.1AX 6.4.15) as an enum: one sample per state, 1 for
// the current one, so a dashboard can plot `== 1` and an alert can match a state by name.
void lacp_mux_samples(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  constexpr lacp::MuxState kStates[] = {
      lacp::MuxState::kDetached,     lacp::MuxState::kWaiting,
      lacp::MuxState::kAttached,     lacp::MuxState::kCollecting,
      lacp::MuxState::kDistributing, lacp::MuxState::kCollectingDistributing};
  for (Bond* bond : bonds) {
    const lacp::LacpSystem* system = bond->lacp();
    if (system == nullptr) continue;
    const lacp::SystemSnapshot snapshot = system->snapshot();
    const std::vector<MemberStatus> members = bond->members();
    for (std::size_t p = 0; p < snapshot.ports.size() && p < members.size(); ++p) {
      for (const lacp::MuxState state : kStates) {
        const char* name = lacp::to_string(state);
        w.sample({{"bond", bond->name()}, {"member", members[p].name}, {"state", name}},
                 std::uint64_t{std::string_view(snapshot.ports[p].mux_state) == name});
      }
    }
  }
}

// The members' service state both ways (member_service.hpp): what braid sends on each, whether
// its LACP partner is told to stop sending (and why), withdrawals and how long the last took.
void service_samples(control::MetricWriter& w, const std::vector<Bond*>& bonds) {
  using control::MetricType;
  w.family("braid_member_transmit_weight_permille",
           "what the member's service leaves braid's transmit on it: 1000 in service, less "
           "degraded, 0 out",
           MetricType::kGauge);
  member_samples(w, bonds, [](const MemberStatus& m) { return m.service.tx_weight_permille; });
  w.family("braid_member_partner_withdrawn",
           "1 while braid tells the member's LACP partner to stop sending on it, with the "
           "reason (0 with reason none: in sync); LACP bonds only",
           MetricType::kGauge);
  for (Bond* bond : bonds) {
    if (bond->lacp() == nullptr) continue;
    for (const MemberStatus& m : bond->members()) {
      w.sample({{"bond", bond->name()},
                {"member", m.name},
                {"reason", m.service.withdrawn ? to_string(m.service.partner) : "none"}},
               std::uint64_t{m.service.withdrawn});
    }
  }
  w.family("braid_member_withdrawals_total", "withdrawals from the LACP partner begun",
           MetricType::kCounter);
  for (Bond* bond : bonds) {
    if (bond->lacp() == nullptr) continue;
    for (std::size_t m = 0; m < bond->member_count(); ++m)
      w.sample({{"bond", bond->name()}, {"member", bond->config().members[m]}},
               bond->service(m).withdrawals());
  }
  w.family("braid_member_partner_release_seconds",
           "how long the partner took to stop sending after the member's last withdrawal "
           "(acknowledged), or until the patience ran out",
           MetricType::kGauge);
  for (Bond* bond : bonds) {
    if (bond->lacp() == nullptr) continue;
    for (const MemberStatus& m : bond->members()) {
      if (!m.last_release_wait_ns) continue;
      w.sample({{"bond", bond->name()}, {"member", m.name}, {"release", to_string(m.last_release)}},
               static_cast<double>(*m.last_release_wait_ns) / 1e9);
    }
  }
}

}  // namespace

void register_bond_metrics(control::MetricsRegistry& metrics, const std::vector<Bond*>& bonds) {
  metrics.add_collector([bonds](control::MetricWriter& w) {
    using control::MetricType;
    w.family("braid_member_up", "1 when the member's link is up and it is admin up",
             MetricType::kGauge);
    member_samples(w, bonds, [](const MemberStatus& m) { return m.link_up && m.admin_up; });
    w.family("braid_member_link_up", "1 when the member's link is up (whatever its admin state)",
             MetricType::kGauge);
    member_samples(w, bonds, [](const MemberStatus& m) { return m.link_up; });
    w.family("braid_member_speed_bytes_per_second",
             "the member's link speed; 0 while the link is down or the speed is unknown",
             MetricType::kGauge);
    for (Bond* bond : bonds) {
      for (const MemberStatus& m : bond->members()) {
        const bool known = m.link_up && m.speed_mbps != RTE_ETH_SPEED_NUM_UNKNOWN;
        w.sample({{"bond", bond->name()}, {"member", m.name}},
                 known ? static_cast<double>(m.speed_mbps) * 1e6 / 8 : 0.0);  // Mbit/s to bytes/s
      }
    }
    w.family("braid_member_distributing", "1 when the member carries traffic", MetricType::kGauge);
    member_samples(w, bonds, [](const MemberStatus& m) { return m.distributing; });
    w.family("braid_member_weight",
             "the member's scheduling weight (relative; the adaptive policy's are in thousandths)",
             MetricType::kGauge);
    member_samples(w, bonds, [](const MemberStatus& m) { return m.weight; });
    // The share needs no knowledge of the policy's scale: what dashboards should plot.
    w.family("braid_member_weight_share", "the member's weight over the bond's total, 0..1",
             MetricType::kGauge);
    for (Bond* bond : bonds) {
      const std::vector<MemberStatus> members = bond->members();
      double total = 0;
      for (const MemberStatus& m : members)
        total += m.weight;
      for (const MemberStatus& m : members) {
        w.sample({{"bond", bond->name()}, {"member", m.name}}, total > 0 ? m.weight / total : 0.0);
      }
    }
    w.family("braid_member_buckets", "distribution-table buckets the member owns",
             MetricType::kGauge);
    member_samples(w, bonds, [](const MemberStatus& m) { return m.buckets; });
    w.family("braid_member_pfc_storm",
             "1 while the PFC watchdog holds the priority in a storm on the member "
             "(scheduler.pfc_watchdog; every priority the bond's classes use)",
             MetricType::kGauge);
    for (Bond* bond : bonds) {
      if (!bond->config().scheduler.pfc_watchdog.enabled) continue;
      const std::uint8_t in_use = bond->pfc_priorities();
      for (std::size_t m = 0; m < bond->member_count(); ++m) {
        for (std::size_t p = 0; p < health::kPfcPriorities; ++p) {
          if ((in_use >> p & 1u) == 0) continue;
          w.sample({{"bond", bond->name()},
                    {"member", bond->config().members[m]},
                    {"priority", std::to_string(p)}},
                   std::uint64_t{(bond->storm_priorities(m) >> p & 1u) != 0});
        }
      }
    }
    service_samples(w, bonds);
    member_traffic_samples(w, bonds);
    w.family("braid_member_slow_steered",
             "1 when the member's NIC steers Slow Protocols frames to a queue of their own",
             MetricType::kGauge);
    member_samples(w, bonds, [](const MemberStatus& m) { return m.slow_rx_queue.has_value(); });
    // The bond's status of `show bond` and /readyz: up while usable >= min_links.
    w.family("braid_bond_usable_members",
             "members able to carry traffic (link and admin up, LACP distributing)",
             MetricType::kGauge);
    for (Bond* bond : bonds)
      w.sample({{"bond", bond->name()}}, std::uint64_t{readiness_of(*bond).usable});
    w.family("braid_bond_min_links",
             "fewer usable members than this and the bond sends nothing (min_links)",
             MetricType::kGauge);
    for (Bond* bond : bonds)
      w.sample({{"bond", bond->name()}}, std::uint64_t{bond->config().min_links});
    w.family("braid_bond_buckets_moved_total", "buckets that changed member", MetricType::kCounter);
    for (Bond* bond : bonds)
      w.sample({{"bond", bond->name()}}, bond->counters().buckets_moved);
    w.family("braid_bond_slow_rx_total",
             "Slow Protocols frames the control thread received, by path: steered (a member's "
             "slow queue) or diverted (the workers' ring)",
             MetricType::kCounter);
    for (Bond* bond : bonds) {
      w.sample({{"bond", bond->name()}, {"path", "steered"}}, bond->counters().slow_rx_steered);
      w.sample({{"bond", bond->name()}, {"path", "diverted"}}, bond->counters().slow_rx_diverted);
    }
    w.family("braid_bond_drops_total", "frames the bond's protocol loop dropped, by reason",
             MetricType::kCounter);
    for (Bond* bond : bonds) {
      w.sample({{"bond", bond->name()}, {"reason", "slow_queue_misdirected"}},
               bond->counters().slow_queue_misdirected);
      w.sample({{"bond", bond->name()}, {"reason", "slow_policed"}}, bond->counters().slow_policed);
      w.sample({{"bond", bond->name()}, {"reason", "slow_unsupported"}},
               bond->counters().slow_unsupported);
    }
    w.family("braid_bond_control_tx_failed_total",
             "LACPDUs and marker responses a member's control TX queue refused, or that found "
             "the control pool empty",
             MetricType::kCounter);
    for (Bond* bond : bonds)
      w.sample({{"bond", bond->name()}}, bond->counters().control_tx_failed);
    w.family("braid_lacp_goodbye_total",
             "out-of-sync LACPDUs sent as members left service (admin down, stop)",
             MetricType::kCounter);
    lacp_port_samples(w, bonds, [](const lacp::PortSnapshot& p) { return p.counters.goodbye_tx; });
    w.family("braid_lacp_resumed_total",
             "members that went back into service from a restart's saved LACP state (restart)",
             MetricType::kCounter);
    lacp_port_samples(w, bonds, [](const lacp::PortSnapshot& p) { return p.counters.resumed; });
    w.family("braid_lacp_fallback_engaged",
             "1 while the member carries traffic without a LACP partner (lacp.fallback)",
             MetricType::kGauge);
    lacp_port_samples(w, bonds, [](const lacp::PortSnapshot& p) {
      return std::string_view(p.fallback) == "engaged";
    });
    w.family("braid_lacp_rejected_total",
             "Slow Protocols frames LACP rejected, by reason (doc/lacp.md)", MetricType::kCounter);
    for (Bond* bond : bonds) {
      const lacp::LacpSystem* system = bond->lacp();
      if (system == nullptr) continue;
      const std::vector<MemberStatus> members = bond->members();
      for (std::size_t p = 0; p < members.size(); ++p) {
        const lacp::PortCounters& counters = system->counters(p);
        for (std::size_t e = 1; e < lacp::kDecodeErrorCount; ++e) {
          w.sample({{"bond", bond->name()},
                    {"member", members[p].name},
                    {"reason", lacp::to_string(static_cast<lacp::DecodeError>(e))}},
                   counters.bad_pdu[e]);
        }
      }
    }
    w.family("braid_lacp_marker_total",
             "marker PDUs by kind: received requests and responses, responses sent, "
             "suppressed (over 10 a second) and refused by the port",
             MetricType::kCounter);
    for (Bond* bond : bonds) {
      const lacp::LacpSystem* system = bond->lacp();
      if (system == nullptr) continue;
      const std::vector<MemberStatus> members = bond->members();
      for (std::size_t p = 0; p < members.size(); ++p) {
        const lacp::PortCounters& c = system->counters(p);
        const std::pair<const char*, std::uint64_t> kinds[] = {
            {"request_rx", c.marker_rx},
            {"response_rx", c.marker_response_rx},
            {"response_tx", c.marker_response_tx},
            {"response_suppressed", c.marker_response_suppressed},
            {"response_tx_failed", c.marker_response_tx_failed}};
        for (const auto& [kind, value] : kinds) {
          w.sample({{"bond", bond->name()}, {"member", members[p].name}, {"kind", kind}}, value);
        }
      }
    }
    w.family("braid_lacp_actor_state", "LACP actor state bits sent (802.1AX 6.4.2.3)",
             MetricType::kGauge);
    lacp_port_samples(w, bonds, [](const lacp::PortSnapshot& p) { return p.actor.state; });
    w.family("braid_lacp_mux_state", "1 for the member's current LACP mux state (802.1AX 6.4.15)",
             MetricType::kGauge);
    lacp_mux_samples(w, bonds);
    w.family("braid_lacp_partner_state", "LACP partner state bits last received",
             MetricType::kGauge);
    lacp_port_samples(w, bonds, [](const lacp::PortSnapshot& p) { return p.partner.state; });
    w.family("braid_lacp_pdus_total", "LACPDUs received and sent", MetricType::kCounter);
    for (Bond* bond : bonds) {
      const lacp::LacpSystem* system = bond->lacp();
      if (system == nullptr) continue;
      const std::vector<MemberStatus> members = bond->members();
      for (std::size_t p = 0; p < members.size(); ++p) {
        const lacp::PortCounters& counters = system->counters(p);
        w.sample({{"bond", bond->name()}, {"member", members[p].name}, {"direction", "rx"}},
                 counters.lacpdu_rx);
        w.sample({{"bond", bond->name()}, {"member", members[p].name}, {"direction", "tx"}},
                 counters.lacpdu_tx);
        w.sample({{"bond", bond->name()}, {"member", members[p].name}, {"direction", "rx_ignored"}},
                 counters.lacpdu_rx_ignored);
        w.sample({{"bond", bond->name()}, {"member", members[p].name}, {"direction", "tx_failed"}},
                 counters.lacpdu_tx_failed);
      }
    }
  });
}

}  // namespace braid::bond
