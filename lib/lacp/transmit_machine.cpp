// 802.1AX-2014 6.4.16 Transmit machine: sends a LACPDU when NTT is set, no more than
// kMaxTxPerFastPeriodic in any Fast_Periodic_Time; a held-back NTT stays set and goes out as
// soon as the window allows. Sending is two steps, so that NTT survives a frame the port could
// not send (a full TX queue, no mbuf): transmit_step() builds the PDU, transmit_done() records
// what became of it.
#include "lacp/machines.hpp"

namespace braid::lacp {
namespace {

// Send time of the oldest of the last kMaxTxPerFastPeriodic transmissions, if there were that many.
std::uint64_t oldest_in_window(const Port& port) {
  if (port.tx_count < kMaxTxPerFastPeriodic) return 0;
  return port.tx_times_ns[port.tx_count % kMaxTxPerFastPeriodic];
}

}  // namespace

std::uint64_t transmit_deadline(const Port& port) {
  if (!port.ntt || port.periodic_state == PeriodicState::kNoPeriodic || !port.port_enabled) {
    return kNever;
  }
  std::uint64_t deadline =
      port.tx_count < kMaxTxPerFastPeriodic ? 0 : oldest_in_window(port) + kFastPeriodicTime;
  return std::max(deadline, port.tx_retry_ns);
}

std::optional<Lacpdu> transmit_step(Port& port, std::uint16_t collector_max_delay,
                                    const MachineContext& context) {
  if (!port.ntt || !port.port_enabled || !port.lacp_enabled ||
      port.periodic_state == PeriodicState::kNoPeriodic) {
    return std::nullopt;
  }
  if (context.now_ns < port.tx_retry_ns) return std::nullopt;
  if (port.tx_count >= kMaxTxPerFastPeriodic &&
      context.now_ns < oldest_in_window(port) + kFastPeriodicTime) {
    if (!port.tx_held) ++port.counters.lacpdu_tx_deferred;
    port.tx_held = true;
    return std::nullopt;
  }
  Lacpdu pdu;
  pdu.actor = port.actor;
  pdu.partner = port.partner;
  pdu.collector_max_delay = collector_max_delay;
  return pdu;
}

void transmit_done(Port& port, bool sent, const MachineContext& context) {
  if (!sent) {
    // NTT stays set: the partner must still learn what this PDU said. Ask again shortly, not
    // at the next periodic time (30 s against a slow partner).
    ++port.counters.lacpdu_tx_failed;
    port.tx_retry_ns = context.now_ns + kTxRetryTime;
    return;
  }
  port.tx_times_ns[port.tx_count % kMaxTxPerFastPeriodic] = context.now_ns;
  ++port.tx_count;
  port.ntt = false;
  port.tx_held = false;
  port.tx_retry_ns = 0;
  ++port.counters.lacpdu_tx;
}

}  // namespace braid::lacp
