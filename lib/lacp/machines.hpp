// The per-port state machines of 802.1AX-2014 6.4. Each `*_step` evaluates the machine's exit
// conditions once, performs at most one transition (with its entry actions) and returns true if
// it moved; the system runs all machines until none moves.
#pragma once

#include <optional>

#include "lacp/pdu.hpp"
#include "lacp/port.hpp"

namespace braid::lacp {

// 6.4.12 Receive machine.
void receive_begin(Port& port, const MachineContext& context);
bool receive_step(Port& port, const MachineContext& context);
// CtrlMuxN:M_UNITDATA.indication(LACPDU): enters CURRENT from EXPIRED, DEFAULTED or CURRENT.
// Returns false (and does nothing) in the other states.
bool receive_lacpdu(Port& port, const Lacpdu& pdu, const MachineContext& context);

// 6.4.13 Periodic Transmission machine.
bool periodic_step(Port& port, const MachineContext& context);

// 6.4.15 Mux machine, coupled or independent control per port.config.mux_mode. `ready` is the
// Ready variable of the port's aggregator (6.4.8).
void mux_begin(Port& port, const MachineContext& context);
bool mux_step(Port& port, bool ready, const MachineContext& context);

// 6.4.17 Actor and Partner churn detection machines.
void churn_begin(Port& port, const MachineContext& context);
bool churn_step(Port& port, const MachineContext& context);

// 6.4.16 Transmit machine: when NTT is set, the Periodic machine is not in NO_PERIODIC and the
// rate limit allows, builds the LACPDU to send. The caller sends it and reports with
// transmit_done(): sent, NTT clears and the send counts against the rate limit; not sent, NTT
// stays and the PDU is built again after kTxRetryTime.
std::optional<Lacpdu> transmit_step(Port& port, std::uint16_t collector_max_delay,
                                    const MachineContext& context);
void transmit_done(Port& port, bool sent, const MachineContext& context);
// When a held-back NTT may go out (kNever if none is held back).
std::uint64_t transmit_deadline(const Port& port);

}  // namespace braid::lacp
