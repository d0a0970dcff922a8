// Bounded ring of state-machine transitions with their (injected) timestamps. The oldest entries
// are overwritten; `dropped()` says how many. Periodic-timer ticks are counted, not kept: the
// Periodic machine enters PERIODIC_TX and goes back to the state it came from on every expiry
// (6.4.13, once a second at the fast rate), and two such entries per port per second would push
// the transitions that matter (selection, mux, receive) out of the ring within a minute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace braid::lacp {

enum class Machine : std::uint8_t {
  kReceive,
  kPeriodic,
  kSelection,
  kMux,
  kActorChurn,
  kPartnerChurn,
  kFallback,    // fallback allowed / engaged / blocked (config.hpp)
  kWithdrawal,  // withdrawn by the bond / released by the partner / in service (withdrawal.hpp)
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
  // Oldest first; no periodic ticks.
  std::vector<Event> events() const;
  std::uint64_t total() const { return total_; }
  std::uint64_t dropped() const { return total_ > ring_.size() ? total_ - ring_.size() : 0; }
  // Periodic-timer expiries: entries into PERIODIC_TX, kept out of events() together with the
  // return to the state they came from (a return elsewhere, a rate change, is an event).
  std::uint64_t periodic_ticks() const { return periodic_ticks_; }

 private:
  bool is_periodic_tick(const Event& event);  // counts the entries

  std::vector<Event> ring_;
  std::uint64_t total_ = 0;
  std::uint64_t periodic_ticks_ = 0;
  // Per port: the state the Periodic machine left for PERIODIC_TX (static strings).
  std::vector<std::pair<std::uint16_t, const char*>> before_tx_;
};

}  // namespace braid::lacp
