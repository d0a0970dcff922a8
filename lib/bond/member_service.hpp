// A bond member's service state, both directions (doc/health.md "Both ends"): from every reason a
// member may not carry traffic — admin state, its link, LACP's mux, its health (up/down delay,
// flap dampening, error rates, BFD, PFC storm), LLDP's cabling findings, braid stopping — one
// decision with its reason:
//   transmit  the weight braid's own tables give the member (1000 permille, less when degraded,
//             0 when it carries nothing);
//   partner   whether braid tells its LACP partner to stop sending on it (withdrawn: the actor's
//             Synchronization, Collecting and Distributing cleared in an LACPDU sent at once,
//             LACPDUs still flowing, lib/lacp LacpSystem::set_withdrawn) — braid's health
//             counters mostly measure the partner-to-braid direction, which only the partner
//             can move;
//   collect   whether frames received on it are accepted.
// A withdrawal keeps collecting until the partner's LACPDU shows it stopped distributing to us
// (acknowledged) or the patience runs out, so frames already on their way are not lost: an
// admin drain (`set member <m> down`) and a planned stop end there. Pure: no DPDK; time is
// injected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "health/member_health.hpp"

namespace braid::bond {

// Why a member carries less than everything, in one direction or the other; first match wins
// (member_service.cpp lists the order).
enum class ServiceReason : std::uint8_t {
  kInService,  // nothing holds it back
  kAdminDown,  // set member <m> down, drained
  kDraining,   // set member <m> down: withdrawn, collecting until the partner lets go
  kStopping,   // braid stops: withdrawn on every member, collecting until the partners let go
  kCarrierDown,
  kUpDelayPending,
  kBfdDown,
  kFlapSuppressed,
  kPfcStorm,
  kErrorRate,            // degraded, with the signal
  kCabling,              // an LLDP cabling finding names it (lacp.withdraw.cabling)
  kLacpNotDistributing,  // transmit only: LACP's mux does not distribute (partner, selection)
};
inline constexpr std::size_t kServiceReasons = 12;

struct ServiceCause {
  ServiceReason reason = ServiceReason::kInService;
  health::Signal signal = health::Signal::kCrc;  // kErrorRate only
  bool operator==(const ServiceCause& other) const {
    return reason == other.reason &&
           (reason != ServiceReason::kErrorRate || signal == other.signal);
  }
};
const char* to_string(ServiceReason reason);
// "in_service", "bfd_down", "error_rate:crc", ...
std::string to_string(const ServiceCause& cause);

// Which health verdicts withdraw the member from its partner (bonds[].lacp.withdraw). Down,
// suppressed, BFD down and PFC storm always do.
struct WithdrawPolicy {
  enum class Degraded : std::uint8_t {
    kReceive,  // when the evidence is on the receive side (health::on_receive_side)
    kAlways,
    kNever,
  };
  Degraded degraded = Degraded::kReceive;
  bool cabling = false;  // an LLDP cabling finding takes the member out of service both ways
  // How long a withdrawal keeps collecting while the partner has not acknowledged it: DPDK's
  // net_bonding runs its machines every 100 ms and sends at most one LACPDU per port every
  // 500 ms, so its acknowledgement can take 600 ms although it stopped sending at once.
  std::uint64_t patience_ns = 1'000'000'000;
};
const char* to_string(WithdrawPolicy::Degraded degraded);

// Everything known about the member now.
struct ServiceInputs {
  bool admin_up = true;   // the operator's intent (set member <m> up|down)
  bool stopping = false;  // braid is stopping
  bool carrier = false;
  bool lacp = false;  // the bond runs LACP: the partner can be told
  bool lacp_distributing = false;
  bool lacp_collecting = false;
  // When the partner's LACPDU, since the current withdrawal began, said it stopped distributing
  // to us (LacpSystem::partner_released_ns); nullopt: not yet.
  std::optional<std::uint64_t> partner_released_ns;
  // The partner's latest LACPDU said Synchronization (a partner braid heard nothing from,
  // Defaulted, does not): only a partner in sync may be sending to us, so a withdrawal waits for
  // no other. (Its Distributing bit is no proof either way: a coupled partner need not send an
  // LACPDU when only that bit changes.)
  bool partner_in_sync = false;
  health::State health = health::State::kHealthy;
  health::Reason health_reason = health::Reason::kNone;
  health::Signal health_signal = health::Signal::kCrc;
  std::uint32_t health_weight_permille = 1000;
  bool cabling_finding = false;
};

struct ServiceVerdict {
  std::uint32_t tx_weight_permille = 0;
  ServiceCause tx;  // kInService at full weight
  bool withdrawn = false;
  ServiceCause partner;  // why withdrawn (kInService when not)
  bool collecting = false;
};

// How the current withdrawal ended on the partner's side.
enum class Release : std::uint8_t {
  kNone,          // not withdrawn
  kPending,       // withdrawn, the partner has not acknowledged yet: still collecting
  kAcknowledged,  // its LACPDU said it stopped distributing to us
  kPatience,      // it did not say so within the patience: collecting stopped anyway
  kLinkDown,      // the link went down (or was down): nothing more to wait for
  kNotSending,    // the partner was not in sync: nothing of its can be on its way
};
const char* to_string(Release release);

// The withdraw reason the inputs give, or kInService (the partner stays in sync). Pure: the
// policy and the inputs, no history.
ServiceCause withdraw_cause(const ServiceInputs& in, const WithdrawPolicy& policy);
// The whole decision for the inputs, given whether the current withdrawal is still pending.
ServiceVerdict decide(const ServiceInputs& in, const WithdrawPolicy& policy, bool release_pending);

struct ServiceEvent {
  enum class Kind : std::uint8_t { kTransmit, kPartner, kRelease };
  Kind kind = Kind::kTransmit;
  std::uint64_t time_ns = 0;
  ServiceVerdict before;
  ServiceVerdict after;
  Release release = Release::kNone;  // kRelease
  std::uint64_t waited_ns = 0;       // kRelease: from the withdrawal to the release
};
// One line for the bond's events: "transmit 1000 -> 0 permille (bfd_down)", "partner withdrawn
// (error_rate:crc)", "partner released after 12.4 ms (acknowledged)".
std::string to_string(const ServiceEvent& event);

class MemberService {
 public:
  // After the partner's LACPDU said it stopped distributing to us, its frames queued before that
  // LACPDU may still arrive behind it: a braid partner sends the LACPDU from its protocol loop
  // while its workers flush what they buffered for the member (tx_drain_us), a NIC's queue
  // drains at line rate. Collecting goes on this long after the acknowledgement (one such frame
  // arrived 0.4 ms after it over veths).
  static constexpr std::uint64_t kAcknowledgeGraceNs = 5'000'000;

  explicit MemberService(const WithdrawPolicy& policy) : policy_(policy) {}

  // Everything known at now_ns; the changes this update made, in order.
  std::vector<ServiceEvent> update(const ServiceInputs& inputs, std::uint64_t now_ns);

  const ServiceVerdict& verdict() const { return verdict_; }
  std::uint64_t tx_since_ns() const { return tx_since_ns_; }
  std::uint64_t partner_since_ns() const { return partner_since_ns_; }
  Release release() const { return release_; }
  // The last withdrawal that ended: how it ended and how long the partner took.
  Release last_release() const { return last_release_; }
  std::optional<std::uint64_t> last_release_wait_ns() const { return last_release_wait_ns_; }
  // Withdrawals begun since start (metrics: braid_member_withdrawals_total).
  std::uint64_t withdrawals() const { return withdrawals_; }
  // An admin drain or a stop has finished with the partner (released, or never withdrawn).
  bool settled() const { return release_ != Release::kPending; }
  // When the patience of a pending withdrawal runs out, or the grace after its acknowledgement.
  std::optional<std::uint64_t> next_deadline_ns() const;
  const WithdrawPolicy& policy() const { return policy_; }

 private:
  WithdrawPolicy policy_;
  ServiceVerdict verdict_{};
  bool started_ = false;
  std::uint64_t tx_since_ns_ = 0;
  std::uint64_t partner_since_ns_ = 0;
  Release release_ = Release::kNone;
  std::uint64_t withdrawn_ns_ = 0;
  std::optional<std::uint64_t> acknowledged_ns_;  // the partner's release, within its grace
  Release last_release_ = Release::kNone;
  std::optional<std::uint64_t> last_release_wait_ns_;
  std::uint64_t withdrawals_ = 0;
};

}  // namespace braid::bond
