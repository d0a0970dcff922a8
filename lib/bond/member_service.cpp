#include "bond/member_service.hpp"

#include <array>
#include <cstdio>

namespace braid::bond {
namespace {

constexpr std::array<const char*, kServiceReasons> kReasonNames = {
    "in_service",   "admin_down",       "draining", "stopping",
    "carrier_down", "up_delay_pending", "bfd_down", "flap_suppressed",
    "pfc_storm",    "error_rate",       "cabling",  "lacp_not_distributing",
};
constexpr std::array<const char*, 3> kDegradedNames = {"receive", "always", "never"};
constexpr std::array<const char*, 6> kReleaseNames = {"none",     "pending",   "acknowledged",
                                                      "patience", "link_down", "not_sending"};

template <typename Enum, std::size_t N>
const char* name_of(const std::array<const char*, N>& names, Enum value) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : "unknown";
}

// A health verdict that holds the member out (down, suppressed) as a service reason.
ServiceReason from_health(health::Reason reason) {
  switch (reason) {
    case health::Reason::kCarrierDown:
      return ServiceReason::kCarrierDown;
    case health::Reason::kBfdDown:
      return ServiceReason::kBfdDown;
    case health::Reason::kUpDelayPending:
      return ServiceReason::kUpDelayPending;
    case health::Reason::kFlapSuppressed:
      return ServiceReason::kFlapSuppressed;
    case health::Reason::kPfcStorm:
      return ServiceReason::kPfcStorm;
    case health::Reason::kErrorRate:
      return ServiceReason::kErrorRate;
    case health::Reason::kNone:
      break;
  }
  return ServiceReason::kInService;
}

bool health_holds_out(const ServiceInputs& in) {
  return in.health == health::State::kDown || in.health == health::State::kSuppressed;
}

bool degraded_withdraws(const ServiceInputs& in, const WithdrawPolicy& policy) {
  if (in.health != health::State::kDegraded) return false;
  switch (policy.degraded) {
    case WithdrawPolicy::Degraded::kAlways:
      return true;
    case WithdrawPolicy::Degraded::kReceive:
      return health::on_receive_side(in.health_signal);
    case WithdrawPolicy::Degraded::kNever:
      break;
  }
  return false;
}

std::string ms_text(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(ns) / 1e6);
  return text;
}

}  // namespace

const char* to_string(ServiceReason reason) {
  return name_of(kReasonNames, reason);
}

std::string to_string(const ServiceCause& cause) {
  std::string text = to_string(cause.reason);
  if (cause.reason == ServiceReason::kErrorRate)
    text += std::string(":") + health::to_string(cause.signal);
  return text;
}

const char* to_string(WithdrawPolicy::Degraded degraded) {
  return name_of(kDegradedNames, degraded);
}

const char* to_string(Release release) {
  return name_of(kReleaseNames, release);
}

// First match wins: braid stopping, the operator, the link, health holding the member out, a
// degraded member under the policy, a cabling finding under the policy.
ServiceCause withdraw_cause(const ServiceInputs& in, const WithdrawPolicy& policy) {
  if (!in.lacp) return {};  // a static bond's partner cannot be told
  if (in.stopping) return {ServiceReason::kStopping};
  if (!in.admin_up) return {ServiceReason::kDraining};
  if (!in.carrier) return {ServiceReason::kCarrierDown};
  if (health_holds_out(in)) return {from_health(in.health_reason), in.health_signal};
  if (degraded_withdraws(in, policy)) return {ServiceReason::kErrorRate, in.health_signal};
  if (policy.cabling && in.cabling_finding) return {ServiceReason::kCabling};
  return {};
}

ServiceVerdict decide(const ServiceInputs& in, const WithdrawPolicy& policy, bool release_pending) {
  ServiceVerdict verdict;
  verdict.partner = withdraw_cause(in, policy);
  verdict.withdrawn = verdict.partner.reason != ServiceReason::kInService;
  // An admin drain that the partner has settled is plain admin down.
  if (verdict.partner.reason == ServiceReason::kDraining && !release_pending)
    verdict.partner = {ServiceReason::kAdminDown};
  // Transmit: the same reasons in the same order, then LACP's own mux. A stop changes nothing
  // for a static bond's tables: there is no partner to let go first.
  if (in.stopping && in.lacp) {
    verdict.tx = {ServiceReason::kStopping};
  } else if (!in.admin_up) {
    verdict.tx = {release_pending ? ServiceReason::kDraining : ServiceReason::kAdminDown};
  } else if (!in.carrier) {
    verdict.tx = {ServiceReason::kCarrierDown};
  } else if (health_holds_out(in) || in.health_weight_permille == 0) {
    verdict.tx = {from_health(in.health_reason), in.health_signal};
  } else if (verdict.withdrawn) {
    verdict.tx = verdict.partner;
  } else if (policy.cabling && in.cabling_finding) {
    verdict.tx = {ServiceReason::kCabling};
  } else if (in.lacp && !in.lacp_distributing) {
    verdict.tx = {ServiceReason::kLacpNotDistributing};
  } else {
    verdict.tx_weight_permille = in.health_weight_permille;
    if (in.health == health::State::kDegraded)
      verdict.tx = {ServiceReason::kErrorRate, in.health_signal};
  }
  // Collect: what LACP's mux collects on, and, while a withdrawal waits for the partner, what
  // is still on its way. Without LACP, the operator's word.
  if (!in.carrier) {
    verdict.collecting = false;
  } else if (!in.lacp) {
    verdict.collecting = in.admin_up;
  } else {
    verdict.collecting = (in.lacp_collecting && in.admin_up && !verdict.withdrawn) ||
                         (verdict.withdrawn && release_pending);
  }
  return verdict;
}

std::vector<ServiceEvent> MemberService::update(const ServiceInputs& in, std::uint64_t now_ns) {
  std::vector<ServiceEvent> events;
  const bool withdrawing = withdraw_cause(in, policy_).reason != ServiceReason::kInService;
  if (withdrawing && release_ == Release::kNone) {
    release_ = Release::kPending;
    withdrawn_ns_ = now_ns;
    ++withdrawals_;
  } else if (!withdrawing) {
    release_ = Release::kNone;
  }
  acknowledged_ns_.reset();
  if (release_ == Release::kPending) {
    std::uint64_t waited = now_ns - withdrawn_ns_;
    const bool acknowledged = in.partner_released_ns && *in.partner_released_ns >= withdrawn_ns_;
    if (acknowledged && now_ns >= *in.partner_released_ns + kAcknowledgeGraceNs) {
      release_ = Release::kAcknowledged;
      waited = *in.partner_released_ns - withdrawn_ns_;
    } else if (acknowledged && in.carrier) {
      acknowledged_ns_ = *in.partner_released_ns;  // frames it queued before may still come
    } else if (!in.carrier) {
      release_ = Release::kLinkDown;
    } else if (!in.partner_in_sync) {
      release_ = Release::kNotSending;
    } else if (now_ns >= withdrawn_ns_ + policy_.patience_ns) {
      release_ = Release::kPatience;
    }
    if (release_ != Release::kPending) {
      last_release_ = release_;
      last_release_wait_ns_ = waited;
      if (started_) {
        ServiceEvent event{
            ServiceEvent::Kind::kRelease, now_ns, verdict_, verdict_, release_, waited};
        events.push_back(event);
      }
    }
  }
  const ServiceVerdict before = verdict_;
  verdict_ = decide(in, policy_, release_ == Release::kPending);
  if (!started_) {
    started_ = true;
    tx_since_ns_ = partner_since_ns_ = now_ns;
    return events;
  }
  if (verdict_.tx_weight_permille != before.tx_weight_permille || !(verdict_.tx == before.tx)) {
    tx_since_ns_ = now_ns;
    events.push_back({ServiceEvent::Kind::kTransmit, now_ns, before, verdict_});
  }
  if (verdict_.withdrawn != before.withdrawn || !(verdict_.partner == before.partner)) {
    partner_since_ns_ = now_ns;
    events.push_back({ServiceEvent::Kind::kPartner, now_ns, before, verdict_});
  }
  return events;
}

std::optional<std::uint64_t> MemberService::next_deadline_ns() const {
  if (release_ != Release::kPending) return std::nullopt;
  if (acknowledged_ns_) return *acknowledged_ns_ + kAcknowledgeGraceNs;
  return withdrawn_ns_ + policy_.patience_ns;
}

std::string to_string(const ServiceEvent& event) {
  const ServiceVerdict& a = event.before;
  const ServiceVerdict& b = event.after;
  switch (event.kind) {
    case ServiceEvent::Kind::kTransmit: {
      std::string text = "transmit ";
      if (a.tx_weight_permille != b.tx_weight_permille)
        text += std::to_string(a.tx_weight_permille) + " -> ";
      text += std::to_string(b.tx_weight_permille) + " permille";
      if (b.tx.reason != ServiceReason::kInService) {
        text += " (" + to_string(b.tx) + ")";
      } else if (a.tx.reason != ServiceReason::kInService) {
        text += " (was " + to_string(a.tx) + ")";
      }
      return text;
    }
    case ServiceEvent::Kind::kPartner:
      if (!b.withdrawn) return "partner back in sync (was " + to_string(a.partner) + ")";
      return "partner withdrawn (" + to_string(b.partner) +
             (a.withdrawn ? ", was " + to_string(a.partner) : std::string()) + ")";
    case ServiceEvent::Kind::kRelease:
      switch (event.release) {
        case Release::kAcknowledged:
          return "partner stopped sending " + ms_text(event.waited_ns) +
                 " after the withdrawal (acknowledged)";
        case Release::kPatience:
          return "partner did not acknowledge the withdrawal within " + ms_text(event.waited_ns) +
                 "; collecting stops (patience)";
        case Release::kLinkDown:
          return "link down " + ms_text(event.waited_ns) + " into the withdrawal";
        case Release::kNotSending:
          return "partner was not in sync: nothing of its on the way";
        case Release::kNone:
        case Release::kPending:
          break;
      }
      break;
  }
  return "";
}

}  // namespace braid::bond
