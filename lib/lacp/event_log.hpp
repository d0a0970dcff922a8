// Bounded ring of state-machine transitions with their (injected) timestamps. The oldest entries
// are overwritten; `dropped()` says how many.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace braid::lacp {

enum class Machine : std::uint8_t {
  kReceive,
  kPeriodic,
  kSelection,
  kMux,
  kActorChurn,
  kPartnerChurn,
  kFallback,  // fallback allowed / engaged / blocked (config.hpp)
  kSystem,
};
const char* to_string(Machine machine);

struct Event {
  std::uint64_t time_ns = 0;
  std::uint16_t port_number = 0;  // 0 for system-wide events
  Machine machine = Machine::kSystem;
  const char* from = "";  // state names are static strings
  const char* to = "";
};
std::string to_string(const Event& event);

class EventLog {
 public:
  explicit EventLog(std::size_t capacity) : ring_(capacity == 0 ? 1 : capacity) {}

  void record(const Event& event);
  // Oldest first.
  std::vector<Event> events() const;
  std::uint64_t total() const { return total_; }
  std::uint64_t dropped() const { return total_ > ring_.size() ? total_ - ring_.size() : 0; }

 private:
  std::vector<Event> ring_;
  std::uint64_t total_ = 0;
};

}  // namespace braid::lacp
