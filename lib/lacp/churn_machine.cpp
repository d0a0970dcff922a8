// 802.1AX-2014 6.4.17 Churn Detection machines (Figures 6-23, 6-24): a port whose actor or
// partner has not reached Synchronization within Churn_Detection_Time is flagged, which usually
// means a misconfigured partner (wrong key, standby, LAG mismatch). Cleared on synchronization.
#include "lacp/machines.hpp"

namespace braid::lacp {
namespace {

struct Churn {
  ChurnState& state;
  Timer& timer;
  bool& flag;
  bool in_sync;
  bool partner;
  Machine machine;
};

void enter(Port& port, Churn& churn, ChurnState next, const MachineContext& context) {
  if (churn.state != next) {
    context.transition(port, churn.machine, to_string(churn.state, churn.partner),
                       to_string(next, churn.partner));
  }
  churn.state = next;
  switch (next) {
    case ChurnState::kChurnMonitor:
      churn.flag = false;
      churn.timer.start(context.now_ns, kChurnDetectionTime);
      break;
    case ChurnState::kNoChurn:
      churn.flag = false;
      break;
    case ChurnState::kChurn:
      churn.flag = true;
      break;
  }
}

bool step(Port& port, Churn churn, const MachineContext& context) {
  const ChurnState before = churn.state;
  // Global transition: BEGIN or !port_enabled holds the machine in the MONITOR state. Entering
  // it continuously would restart the timer at every evaluation; braid stops the timer instead
  // and starts it at the first evaluation with the link up, which is the same instant.
  if (!port.port_enabled) {
    if (churn.state != ChurnState::kChurnMonitor)
      enter(port, churn, ChurnState::kChurnMonitor, context);
    churn.timer.stop();
    return churn.state != before;
  }
  switch (churn.state) {
    case ChurnState::kChurnMonitor:
      if (!churn.timer.running()) churn.timer.start(context.now_ns, kChurnDetectionTime);
      if (churn.in_sync) {
        enter(port, churn, ChurnState::kNoChurn, context);
      } else if (churn.timer.expired(context.now_ns)) {
        enter(port, churn, ChurnState::kChurn, context);
      }
      break;
    case ChurnState::kNoChurn:
      if (!churn.in_sync) enter(port, churn, ChurnState::kChurnMonitor, context);
      break;
    case ChurnState::kChurn:
      if (churn.in_sync) enter(port, churn, ChurnState::kNoChurn, context);
      break;
  }
  return churn.state != before;
}

Churn actor_churn(Port& port) {
  return Churn{port.actor_churn_state,
               port.actor_churn_timer,
               port.actor_churn,
               has_bit(port.actor.state, state_bit::kSynchronization),
               false,
               Machine::kActorChurn};
}
Churn partner_churn(Port& port) {
  return Churn{port.partner_churn_state,
               port.partner_churn_timer,
               port.partner_churn,
               has_bit(port.partner.state, state_bit::kSynchronization),
               true,
               Machine::kPartnerChurn};
}

}  // namespace

void churn_begin(Port& port, const MachineContext& context) {
  Churn actor = actor_churn(port);
  enter(port, actor, ChurnState::kChurnMonitor, context);
  Churn partner = partner_churn(port);
  enter(port, partner, ChurnState::kChurnMonitor, context);
}

bool churn_step(Port& port, const MachineContext& context) {
  const bool actor_moved = step(port, actor_churn(port), context);
  const bool partner_moved = step(port, partner_churn(port), context);
  return actor_moved || partner_moved;
}

}  // namespace braid::lacp
