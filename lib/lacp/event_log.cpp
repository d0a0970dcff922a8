#include "lacp/event_log.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace braid::lacp {

const char* to_string(Machine machine) {
  switch (machine) {
    case Machine::kReceive:
      return "receive";
    case Machine::kPeriodic:
      return "periodic";
    case Machine::kSelection:
      return "selection";
    case Machine::kMux:
      return "mux";
    case Machine::kActorChurn:
      return "actor_churn";
    case Machine::kPartnerChurn:
      return "partner_churn";
    case Machine::kFallback:
      return "fallback";
    case Machine::kWithdrawal:
      return "withdrawal";
    case Machine::kSystem:
      return "system";
  }
  return "unknown";
}

std::string to_string(const Event& event) {
  char text[160];
  std::snprintf(text, sizeof text, "%llu.%09llu port %u %s %s -> %s",
                static_cast<unsigned long long>(event.time_ns / 1'000'000'000),
                static_cast<unsigned long long>(event.time_ns % 1'000'000'000), event.port_number,
                to_string(event.machine), event.from, event.to);
  return text;
}

bool EventLog::is_periodic_tick(const Event& event) {
  if (event.machine != Machine::kPeriodic) return false;
  constexpr std::string_view kTx = "PERIODIC_TX";
  auto slot = std::find_if(before_tx_.begin(), before_tx_.end(),
                           [&](const auto& entry) { return entry.first == event.port_number; });
  if (event.to == kTx) {
    // Entering PERIODIC_TX: a timer expiry (or the partner asking for the fast rate: the
    // return to FAST_PERIODIC is then a transition of its own).
    if (slot == before_tx_.end()) {
      before_tx_.emplace_back(event.port_number, event.from);
    } else {
      slot->second = event.from;
    }
    ++periodic_ticks_;
    return true;
  }
  // Leaving PERIODIC_TX for the state it came from: a tick. For another (a rate change, or
  // NO_PERIODIC), a transition.
  return event.from == kTx && slot != before_tx_.end() &&
         event.to == std::string_view(slot->second);
}

void EventLog::record(const Event& event) {
  if (is_periodic_tick(event)) return;
  ring_[total_ % ring_.size()] = event;
  ++total_;
}

std::vector<Event> EventLog::events() const {
  std::vector<Event> out;
  const std::uint64_t kept = total_ - dropped();
  out.reserve(kept);
  for (std::uint64_t i = total_ - kept; i < total_; ++i)
    out.push_back(ring_[i % ring_.size()]);
  return out;
}

}  // namespace braid::lacp
