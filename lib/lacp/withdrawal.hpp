// Withdrawal: the bond asks the partner to stop sending to a port while the link stays up and
// LACP keeps running (LacpSystem::set_withdrawn), so the port can come back later without a new
// selection or an expiry. Selection holds a withdrawn port in STANDBY within its aggregator
// (802.1AX-2014 6.4.14); the Mux machine detaches it (6.4.15), clearing our Synchronization,
// Collecting and Distributing bits with NTT; an 802.1AX partner leaves COLLECTING_DISTRIBUTING on
// our Synchronization, DPDK's net_bonding stops distributing on our Collecting. The first LACPDU
// whose actor state says the partner no longer distributes to us is its release: the bond drains
// the port (stops collecting) only then.
#pragma once

#include <cstdint>
#include <optional>

#include "lacp/types.hpp"

namespace braid::lacp {

struct Withdrawal {
  bool active = false;
  std::uint64_t since_ns = 0;  // when the withdrawal began; meaningful while active
  // The first LACPDU received since then in which the partner's actor said it no longer
  // distributes to us; nullopt until then and while not withdrawn.
  std::optional<std::uint64_t> partner_released_ns;

  void begin(std::uint64_t now_ns) {
    active = true;
    since_ns = now_ns;
    partner_released_ns.reset();  // a new withdrawal needs a new acknowledgement
  }
  void end() {
    active = false;
    partner_released_ns.reset();
  }
  // A LACPDU the Receive machine took, with the partner's actor state as received (not our
  // recomputed view of its Synchronization, which also depends on its echo of us, 6.4.9
  // recordPDU). True when this one is the release.
  bool heard(std::uint8_t their_actor_state, std::uint64_t now_ns) {
    if (!active || partner_released_ns.has_value()) return false;
    // A partner distributes only in sync and with Distributing set (6.4.15); either bit clear
    // means it has stopped sending to us.
    if (has_bit(their_actor_state, state_bit::kSynchronization) &&
        has_bit(their_actor_state, state_bit::kDistributing)) {
      return false;
    }
    partner_released_ns = now_ns;
    return true;
  }
  // For the event log (Machine::kWithdrawal) and the console.
  const char* state_name() const {
    if (!active) return "IN_SERVICE";
    return partner_released_ns.has_value() ? "PARTNER_RELEASED" : "WITHDRAWN";
  }
};

}  // namespace braid::lacp
