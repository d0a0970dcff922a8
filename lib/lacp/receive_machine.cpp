// 802.1AX-2014 6.4.12 Receive machine (Figure 6-18) and the functions it calls (6.4.9).
#include "lacp/machines.hpp"

namespace braid::lacp {
namespace {

constexpr std::uint8_t kSelectionBits = state_bit::kAggregation;
constexpr std::uint8_t kNttBits = state_bit::kActivity | state_bit::kTimeout |
                                  state_bit::kAggregation | state_bit::kSynchronization;

bool same_identity(const PortInfo& a, const PortInfo& b) {
  return a.port_number == b.port_number && a.port_priority == b.port_priority &&
         a.system == b.system && a.system_priority == b.system_priority && a.key == b.key;
}

// recordDefault (6.4.9).
void record_default(Port& port) {
  port.partner = port.partner_admin;
  set_bit(port.actor.state, state_bit::kDefaulted, true);
}

// update_Default_Selected (6.4.9).
void update_default_selected(Port& port) {
  if (!same_identity(port.partner_admin, port.partner) ||
      (port.partner_admin.state & kSelectionBits) != (port.partner.state & kSelectionBits)) {
    port.selected = Selected::kUnselected;
  }
}

// update_Selected (6.4.9): the partner in the PDU is not the one this port selected for.
void update_selected(Port& port, const Lacpdu& pdu) {
  if (!same_identity(pdu.actor, port.partner) ||
      (pdu.actor.state & kSelectionBits) != (port.partner.state & kSelectionBits)) {
    port.selected = Selected::kUnselected;
  }
}

// update_NTT (6.4.9): the partner's view of us is out of date.
void update_ntt(Port& port, const Lacpdu& pdu) {
  if (!same_identity(pdu.partner, port.actor) ||
      (pdu.partner.state & kNttBits) != (port.actor.state & kNttBits)) {
    port.ntt = true;
  }
}

// recordPDU (6.4.9).
void record_pdu(Port& port, const Lacpdu& pdu) {
  const bool actor_matches =
      same_identity(pdu.partner, port.actor) &&
      (pdu.partner.state & state_bit::kAggregation) == (port.actor.state & state_bit::kAggregation);
  const bool their_sync = has_bit(pdu.actor.state, state_bit::kSynchronization);
  const bool individual = !has_bit(pdu.actor.state, state_bit::kAggregation);
  // "LACP will actively maintain the link": either end is Active.
  const bool maintained = has_bit(pdu.actor.state, state_bit::kActivity) ||
                          (has_bit(port.actor.state, state_bit::kActivity) &&
                           has_bit(pdu.partner.state, state_bit::kActivity));
  port.partner = pdu.actor;
  set_bit(port.partner.state, state_bit::kSynchronization,
          maintained && their_sync && (actor_matches || individual));
  set_bit(port.actor.state, state_bit::kDefaulted, false);
}

std::uint64_t actor_timeout_ns(const Port& port) {
  return has_bit(port.actor.state, state_bit::kTimeout) ? kShortTimeoutTime : kLongTimeoutTime;
}

void enter(Port& port, RxState next, const MachineContext& context) {
  if (port.rx_state != next) {
    context.transition(port, Machine::kReceive, to_string(port.rx_state), to_string(next));
  }
  port.rx_state = next;
  switch (next) {
    case RxState::kInitialize:
      port.selected = Selected::kUnselected;
      record_default(port);
      set_bit(port.actor.state, state_bit::kExpired, false);
      port.port_moved = false;
      break;
    case RxState::kPortDisabled:
      set_bit(port.partner.state, state_bit::kSynchronization, false);
      port.current_while_timer.stop();
      break;
    case RxState::kExpired:
      set_bit(port.partner.state, state_bit::kSynchronization, false);
      set_bit(port.partner.state, state_bit::kTimeout, true);  // Short Timeout
      port.current_while_timer.start(context.now_ns, kShortTimeoutTime);
      set_bit(port.actor.state, state_bit::kExpired, true);
      break;
    case RxState::kLacpDisabled:
      port.selected = Selected::kUnselected;
      record_default(port);
      set_bit(port.partner.state, state_bit::kAggregation, false);
      set_bit(port.actor.state, state_bit::kExpired, false);
      break;
    case RxState::kDefaulted:
      update_default_selected(port);
      record_default(port);
      set_bit(port.actor.state, state_bit::kExpired, false);
      break;
    case RxState::kCurrent:
      break;  // entered only through receive_lacpdu, which performs the actions
  }
}

}  // namespace

void receive_begin(Port& port, const MachineContext& context) {
  enter(port, RxState::kInitialize, context);
  enter(port, RxState::kPortDisabled, context);
}

bool receive_step(Port& port, const MachineContext& context) {
  const RxState before = port.rx_state;
  // Global transition: (!port_enabled) && (!port_moved) from any state.
  if (!port.port_enabled && !port.port_moved) {
    if (port.rx_state != RxState::kPortDisabled) enter(port, RxState::kPortDisabled, context);
    return port.rx_state != before;
  }
  switch (port.rx_state) {
    case RxState::kInitialize:
      enter(port, RxState::kPortDisabled, context);
      break;
    case RxState::kPortDisabled:
      if (port.port_moved) {
        enter(port, RxState::kInitialize, context);
      } else if (port.port_enabled && port.lacp_enabled) {
        enter(port, RxState::kExpired, context);
      } else if (port.port_enabled) {
        enter(port, RxState::kLacpDisabled, context);
      }
      break;
    case RxState::kExpired:
      if (port.current_while_timer.expired(context.now_ns)) {
        enter(port, RxState::kDefaulted, context);
      }
      break;
    case RxState::kLacpDisabled:
      if (port.lacp_enabled) enter(port, RxState::kPortDisabled, context);
      break;
    case RxState::kDefaulted:
      break;
    case RxState::kCurrent:
      if (port.current_while_timer.expired(context.now_ns)) {
        enter(port, RxState::kExpired, context);
      }
      break;
  }
  return port.rx_state != before;
}

bool receive_lacpdu(Port& port, const Lacpdu& pdu, const MachineContext& context) {
  if (port.rx_state != RxState::kExpired && port.rx_state != RxState::kDefaulted &&
      port.rx_state != RxState::kCurrent) {
    return false;
  }
  if (!port.port_enabled) return false;
  if (port.rx_state != RxState::kCurrent) {
    context.transition(port, Machine::kReceive, to_string(port.rx_state),
                       to_string(RxState::kCurrent));
  }
  port.rx_state = RxState::kCurrent;
  update_selected(port, pdu);
  update_ntt(port, pdu);
  record_pdu(port, pdu);
  port.current_while_timer.start(context.now_ns, actor_timeout_ns(port));
  set_bit(port.actor.state, state_bit::kExpired, false);
  return true;
}

}  // namespace braid::lacp
