#include "lacp/port.hpp"

#include "lacp/key.hpp"

namespace braid::lacp {

const char* to_string(RxState state) {
  switch (state) {
    case RxState::kInitialize:
      return "INITIALIZE";
    case RxState::kPortDisabled:
      return "PORT_DISABLED";
    case RxState::kExpired:
      return "EXPIRED";
    case RxState::kLacpDisabled:
      return "LACP_DISABLED";
    case RxState::kDefaulted:
      return "DEFAULTED";
    case RxState::kCurrent:
      return "CURRENT";
  }
  return "?";
}

const char* to_string(PeriodicState state) {
  switch (state) {
    case PeriodicState::kNoPeriodic:
      return "NO_PERIODIC";
    case PeriodicState::kFastPeriodic:
      return "FAST_PERIODIC";
    case PeriodicState::kSlowPeriodic:
      return "SLOW_PERIODIC";
    case PeriodicState::kPeriodicTx:
      return "PERIODIC_TX";
  }
  return "?";
}

const char* to_string(MuxState state) {
  switch (state) {
    case MuxState::kDetached:
      return "DETACHED";
    case MuxState::kWaiting:
      return "WAITING";
    case MuxState::kAttached:
      return "ATTACHED";
    case MuxState::kCollecting:
      return "COLLECTING";
    case MuxState::kDistributing:
      return "DISTRIBUTING";
    case MuxState::kCollectingDistributing:
      return "COLLECTING_DISTRIBUTING";
  }
  return "?";
}

const char* to_string(Selected selected) {
  switch (selected) {
    case Selected::kUnselected:
      return "UNSELECTED";
    case Selected::kSelected:
      return "SELECTED";
    case Selected::kStandby:
      return "STANDBY";
  }
  return "?";
}

const char* to_string(ChurnState state, bool partner) {
  switch (state) {
    case ChurnState::kNoChurn:
      return partner ? "NO_PARTNER_CHURN" : "NO_ACTOR_CHURN";
    case ChurnState::kChurnMonitor:
      return partner ? "PARTNER_CHURN_MONITOR" : "ACTOR_CHURN_MONITOR";
    case ChurnState::kChurn:
      return partner ? "PARTNER_CHURN" : "ACTOR_CHURN";
  }
  return "?";
}

const char* to_string(FallbackState state) {
  switch (state) {
    case FallbackState::kOff:
      return "off";
    case FallbackState::kBlockedByLacpdu:
      return "blocked_lacpdu_heard";
    case FallbackState::kNoNeighbour:
      return "blocked_no_neighbour";
    case FallbackState::kArmed:
      return "armed";
    case FallbackState::kEngaged:
      return "engaged";
  }
  return "?";
}

Port::Port(const PortConfig& port_config, const SystemConfig& system_config) : config(port_config) {
  actor.system_priority = system_config.system_priority;
  actor.system = system_config.system_mac;
  refresh_actor_admin();
  // Partner_Admin_* (6.4.7): an unknown partner (null System, key 0) that is Individual, so a
  // defaulted port never aggregates with another. Fallback, while allowed, makes the assumed
  // partner in sync and collecting/distributing (set_fallback_partner), so the Mux machine lets
  // the port carry traffic on its own.
  partner_admin.state = state_bit::kTimeout;
  partner = partner_admin;
  fallback = config.fallback ? FallbackState::kNoNeighbour : FallbackState::kOff;
}

bool Port::fallback_allowed(std::uint64_t now_ns) const {
  if (!config.fallback) return false;
  return fallback_block(now_ns) == FallbackState::kArmed;
}

FallbackState Port::fallback_block(std::uint64_t now_ns) const {
  if (!config.fallback) return FallbackState::kOff;
  if (lacpdu_heard_ns != 0 && now_ns - lacpdu_heard_ns < kLongTimeoutTime)
    return FallbackState::kBlockedByLacpdu;
  if (neighbour_seen_ns == 0 || now_ns - neighbour_seen_ns >= kFallbackNeighbourWindow)
    return FallbackState::kNoNeighbour;
  return FallbackState::kArmed;
}

void Port::set_fallback_partner(bool in_service) {
  set_bit(partner_admin.state, state_bit::kSynchronization, in_service);
  set_bit(partner_admin.state, state_bit::kCollecting, in_service);
  set_bit(partner_admin.state, state_bit::kDistributing, in_service);
}

bool Port::ready_n(std::uint64_t now_ns) const {
  if (mux_state == MuxState::kDetached) return false;
  if (mux_state == MuxState::kWaiting) return wait_while_timer.expired(now_ns);
  return true;
}

std::uint16_t Port::oper_key() const {
  if (config.key) return *config.key;
  return derive_port_key(speed_mbps, full_duplex, config.user_key);
}

bool Port::refresh_actor_admin() {
  const PortInfo before = actor;
  actor.port_number = config.port_number;
  actor.port_priority = config.port_priority;
  actor.key = oper_key();
  set_bit(actor.state, state_bit::kActivity, config.activity == LacpActivity::kActive);
  set_bit(actor.state, state_bit::kTimeout, config.timeout == LacpTimeout::kShort);
  set_bit(actor.state, state_bit::kAggregation, config.aggregatable);
  return !(before == actor);
}

}  // namespace braid::lacp
