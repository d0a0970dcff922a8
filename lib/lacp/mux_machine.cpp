// 802.1AX-2014 6.4.15 Mux machine: independent control (Figure 6-21) and coupled control
// (Figure 6-22). Collecting/distributing follow the Synchronization bit of the partner, never
// its Collecting/Distributing bits alone: some partners advertise those while expired.
//
// One addition to coupled control: in COLLECTING_DISTRIBUTING the port distributes only while
// the partner's Collecting bit is set. Figure 6-22 enables distribution on the partner's
// Synchronization alone, which assumes the partner is coupled too (it collects as soon as it is
// in sync). A partner with independent control (DPDK's net_bonding) says Synchronization in
// ATTACHED, before it collects; sending then would be discarded by its collector. A coupled
// partner sets Collecting with Synchronization's consequence, so waiting for it costs one
// LACPDU round trip and never deadlocks: collecting never waits for the partner's bits.
#include "lacp/machines.hpp"

namespace braid::lacp {
namespace {

bool partner_in_sync(const Port& port) {
  return has_bit(port.partner.state, state_bit::kSynchronization);
}
bool partner_collecting(const Port& port) {
  return has_bit(port.partner.state, state_bit::kCollecting);
}

void set_collecting(Port& port, bool on) {
  port.collecting = on;  // Enable_Collecting / Disable_Collecting
  set_bit(port.actor.state, state_bit::kCollecting, on);
}
void set_distributing(Port& port, bool on) {
  port.distributing = on;  // Enable_Distributing / Disable_Distributing
  set_bit(port.actor.state, state_bit::kDistributing, on);
}

void enter(Port& port, MuxState next, const MachineContext& context) {
  if (port.mux_state != next) {
    context.transition(port, Machine::kMux, to_string(port.mux_state), to_string(next));
  }
  port.mux_state = next;
  switch (next) {
    case MuxState::kDetached:
      port.attached = false;  // Detach_Mux_From_Aggregator
      set_bit(port.actor.state, state_bit::kSynchronization, false);
      set_distributing(port, false);
      set_collecting(port, false);
      port.ntt = true;
      break;
    case MuxState::kWaiting:
      port.wait_while_timer.start(context.now_ns, port.config.aggregate_wait_ns);
      break;
    case MuxState::kAttached:
      port.attached = true;  // Attach_Mux_To_Aggregator
      set_bit(port.actor.state, state_bit::kSynchronization, true);
      set_collecting(port, false);
      if (port.config.mux_mode == MuxMode::kCoupled) set_distributing(port, false);
      port.ntt = true;
      break;
    case MuxState::kCollecting:
      set_collecting(port, true);
      set_distributing(port, false);
      port.ntt = true;
      break;
    case MuxState::kDistributing:
      set_distributing(port, true);
      break;
    case MuxState::kCollectingDistributing:
      set_distributing(port, partner_collecting(port));
      set_collecting(port, true);
      port.ntt = true;
      break;
  }
}

}  // namespace

void mux_begin(Port& port, const MachineContext& context) {
  enter(port, MuxState::kDetached, context);
}

bool mux_step(Port& port, bool ready, const MachineContext& context) {
  const MuxState before = port.mux_state;
  const bool selected = port.selected == Selected::kSelected;
  const bool unselected = port.selected == Selected::kUnselected;
  const bool coupled = port.config.mux_mode == MuxMode::kCoupled;
  switch (port.mux_state) {
    case MuxState::kDetached:
      if (!unselected) enter(port, MuxState::kWaiting, context);
      break;
    case MuxState::kWaiting:
      if (unselected) {
        enter(port, MuxState::kDetached, context);
      } else if (selected && ready) {
        enter(port, MuxState::kAttached, context);
      }
      break;
    case MuxState::kAttached:
      if (!selected) {
        enter(port, MuxState::kDetached, context);
      } else if (partner_in_sync(port)) {
        enter(port, coupled ? MuxState::kCollectingDistributing : MuxState::kCollecting, context);
      }
      break;
    case MuxState::kCollecting:
      if (!selected || !partner_in_sync(port)) {
        enter(port, MuxState::kAttached, context);
      } else if (partner_collecting(port)) {
        enter(port, MuxState::kDistributing, context);
      }
      break;
    case MuxState::kDistributing:
      if (!selected || !partner_in_sync(port) || !partner_collecting(port)) {
        enter(port, MuxState::kCollecting, context);
      }
      break;
    case MuxState::kCollectingDistributing:
      if (!selected || !partner_in_sync(port)) {
        enter(port, MuxState::kAttached, context);
      } else if (port.distributing != partner_collecting(port)) {
        // No NTT: the partner's machines do not read our Distributing bit (update_NTT, 6.4.9),
        // and an extra LACPDU here would hit the 3-per-second limit at every link-up.
        set_distributing(port, partner_collecting(port));
        return true;
      }
      break;
  }
  return port.mux_state != before;
}

}  // namespace braid::lacp
