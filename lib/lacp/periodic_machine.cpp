// 802.1AX-2014 6.4.13 Periodic Transmission machine (Figure 6-19).
#include "lacp/machines.hpp"

namespace braid::lacp {
namespace {

bool partner_short_timeout(const Port& port) {
  return has_bit(port.partner.state, state_bit::kTimeout);
}

void enter(Port& port, PeriodicState next, const MachineContext& context) {
  if (port.periodic_state != next) {
    context.transition(port, Machine::kPeriodic, to_string(port.periodic_state), to_string(next));
  }
  port.periodic_state = next;
  switch (next) {
    case PeriodicState::kNoPeriodic:
      port.periodic_timer.stop();
      break;
    case PeriodicState::kFastPeriodic:
      port.periodic_timer.start(context.now_ns, kFastPeriodicTime);
      break;
    case PeriodicState::kSlowPeriodic:
      port.periodic_timer.start(context.now_ns, kSlowPeriodicTime);
      break;
    case PeriodicState::kPeriodicTx:
      port.ntt = true;
      break;
  }
}

}  // namespace

bool periodic_step(Port& port, const MachineContext& context) {
  const PeriodicState before = port.periodic_state;
  // Global transition: LACP off, link down, or both ends Passive: nobody sends periodically.
  const bool both_passive = !has_bit(port.actor.state, state_bit::kActivity) &&
                            !has_bit(port.partner.state, state_bit::kActivity);
  if (!port.lacp_enabled || !port.port_enabled || both_passive) {
    if (port.periodic_state != PeriodicState::kNoPeriodic) {
      enter(port, PeriodicState::kNoPeriodic, context);
    }
    return port.periodic_state != before;
  }
  switch (port.periodic_state) {
    case PeriodicState::kNoPeriodic:
      enter(port, PeriodicState::kFastPeriodic, context);
      break;
    case PeriodicState::kFastPeriodic:
      if (port.periodic_timer.expired(context.now_ns)) {
        enter(port, PeriodicState::kPeriodicTx, context);
      } else if (!partner_short_timeout(port)) {
        enter(port, PeriodicState::kSlowPeriodic, context);
      }
      break;
    case PeriodicState::kSlowPeriodic:
      if (port.periodic_timer.expired(context.now_ns) || partner_short_timeout(port)) {
        enter(port, PeriodicState::kPeriodicTx, context);
      }
      break;
    case PeriodicState::kPeriodicTx:
      enter(
          port,
          partner_short_timeout(port) ? PeriodicState::kFastPeriodic : PeriodicState::kSlowPeriodic,
          context);
      break;
  }
  return port.periodic_state != before;
}

}  // namespace braid::lacp
