// LACP-preserving restart (doc/lacp.md "Restart without a flap"). A port in service saves what
// its partner knows of it and what it knows of its partner (ResumePoint); a new process arms
// the port with it and, when the port's link comes up, takes the aggregation up where the old
// one left it: Receive machine CURRENT with the saved partner, Mux machine collecting and
// distributing, no selection and no aggregate wait, and a LACPDU out at once that tells the
// partner nothing changed. The partner notices nothing as long as the new process sends before
// the partner's own current_while runs out: that timer runs on the partner's own
// LACP_Timeout (802.1AX-2014 6.4.12), 3 s for a partner at the fast rate and 90 s at the slow
// rate, whatever braid says of itself. A partner that restarted, changed or expired braid in
// the meantime tells so in its next LACPDU, and the port goes through selection as on a cold
// start.
#pragma once

#include <cstdint>
#include <string>

#include "lacp/types.hpp"

namespace braid::lacp {

struct ResumePoint {
  PortInfo actor;    // as last sent: identity and state (in sync, collecting, distributing)
  PortInfo partner;  // as last recorded from the partner's LACPDUs (in sync)
  int aggregator = -1;
  bool operator==(const ResumePoint&) const = default;
};

// An armed point is applied at the port's first link up within this window, and dropped after
// it (a link that takes longer to come up starts cold: the partner has expired us by then
// unless it runs at the slow rate, and a cold start is safe either way).
inline constexpr std::uint64_t kResumeArmWindowNs = 30'000'000'000;

enum class ResumeOutcome : std::uint8_t {
  kNone,     // never armed
  kArmed,    // waiting for the link
  kResumed,  // applied: the port went straight back into service
  kRefused,  // the saved point does not match the port now (resume_refusal() says why)
  kExpired,  // the link did not come up within kResumeArmWindowNs
};
const char* to_string(ResumeOutcome outcome);

// Why `point` cannot resume a port whose actor information is now `actor` (its identity and the
// admin bits, Activity, Timeout and Aggregation, after link up), or "" when it can.
std::string resume_mismatch(const ResumePoint& point, const PortInfo& actor);

}  // namespace braid::lacp
