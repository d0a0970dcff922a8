#include "lacp/event_log.hpp"

#include <cstdio>

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

void EventLog::record(const Event& event) {
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
