#include "lacp/resume.hpp"

namespace braid::lacp {

const char* to_string(ResumeOutcome outcome) {
  switch (outcome) {
    case ResumeOutcome::kNone:
      return "none";
    case ResumeOutcome::kArmed:
      return "armed";
    case ResumeOutcome::kResumed:
      return "resumed";
    case ResumeOutcome::kRefused:
      return "refused";
    case ResumeOutcome::kExpired:
      return "expired";
  }
  return "?";
}

std::string resume_mismatch(const ResumePoint& point, const PortInfo& actor) {
  // What the partner's update_Selected compares (6.4.9): a change in any of these is a new
  // selection at the partner, which a resumed port must not pretend away.
  const PortInfo& saved = point.actor;
  if (saved.port_number != actor.port_number)
    return "port number " + std::to_string(saved.port_number) + " saved, " +
           std::to_string(actor.port_number) + " now";
  if (saved.system != actor.system || saved.system_priority != actor.system_priority)
    return "system " + std::to_string(saved.system_priority) + "," + mac_string(saved.system) +
           " saved, " + std::to_string(actor.system_priority) + "," + mac_string(actor.system) +
           " now";
  if (saved.key != actor.key)
    return "key " + std::to_string(saved.key) + " saved, " + std::to_string(actor.key) + " now";
  if (saved.port_priority != actor.port_priority)
    return "port priority " + std::to_string(saved.port_priority) + " saved, " +
           std::to_string(actor.port_priority) + " now";
  if (has_bit(saved.state, state_bit::kAggregation) !=
      has_bit(actor.state, state_bit::kAggregation))
    return "aggregation changed";
  constexpr std::uint8_t kInService =
      state_bit::kSynchronization | state_bit::kCollecting | state_bit::kDistributing;
  if ((saved.state & kInService) != kInService ||
      !has_bit(point.partner.state, state_bit::kSynchronization))
    return "the saved port was not in service";
  if (point.aggregator < 0) return "no aggregator saved";
  return "";
}

}  // namespace braid::lacp
