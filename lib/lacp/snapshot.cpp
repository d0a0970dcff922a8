#include "lacp/snapshot.hpp"

#include <cstdio>
#include <cstring>

namespace braid::lacp {
namespace {

std::string info_line(const char* who, const PortInfo& info) {
  char text[160];
  std::snprintf(text, sizeof text, "    %-7s system %u,%s key %u port %u,%u state %s\n", who,
                info.system_priority, mac_string(info.system).c_str(), info.key, info.port_priority,
                info.port_number, state_string(info.state).c_str());
  return text;
}

}  // namespace

std::string format_snapshot(const SystemSnapshot& snapshot) {
  std::string out;
  char text[256];
  std::snprintf(text, sizeof text, "lacp system %u,%s active aggregator %d generation %llu\n",
                snapshot.system_priority, mac_string(snapshot.system_mac).c_str(),
                snapshot.active_aggregator, static_cast<unsigned long long>(snapshot.generation));
  out += text;
  for (const PortSnapshot& port : snapshot.ports) {
    const bool shows_fallback = std::strcmp(port.fallback, "off") != 0;
    const char* withdrawal = "";
    if (port.withdrawn) {
      withdrawal = port.partner_released_ns ? " withdrawn, partner released" : " withdrawn";
    }
    std::snprintf(text, sizeof text,
                  "  port %u %s link %s %u Mb/s agg %d %s rx %s periodic %s mux %s%s%s%s%s%s\n",
                  port.port_number, mac_string(port.port_mac).c_str(), port.link_up ? "up" : "down",
                  port.speed_mbps, port.aggregator, port.selected, port.receive_state,
                  port.periodic_state, port.mux_state, port.actor_churn ? " ACTOR_CHURN" : "",
                  port.partner_churn ? " PARTNER_CHURN" : "", shows_fallback ? " fallback " : "",
                  shows_fallback ? port.fallback : "", withdrawal);
    out += text;
    out += info_line("actor", port.actor);
    out += info_line("partner", port.partner);
    std::snprintf(text, sizeof text,
                  "    lacpdu rx %llu tx %llu marker rx %llu response tx %llu bad %llu\n",
                  static_cast<unsigned long long>(port.counters.lacpdu_rx),
                  static_cast<unsigned long long>(port.counters.lacpdu_tx),
                  static_cast<unsigned long long>(port.counters.marker_rx),
                  static_cast<unsigned long long>(port.counters.marker_response_tx),
                  static_cast<unsigned long long>(port.counters.bad_pdu_total));
    out += text;
  }
  return out;
}

}  // namespace braid::lacp
