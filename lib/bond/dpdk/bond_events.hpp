// A bond's event history: what `show bond` lists under recent_events and what the log says, one
// line per event (member links, health, LACP fallback, tables, goodbyes). Bounded: the oldest
// event goes once the history is full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace braid::bond {

struct BondEvent {
  std::uint64_t time_ns;
  std::string text;
};

class BondEventLog {
 public:
  static constexpr std::size_t kCapacity = 256;

  explicit BondEventLog(std::string bond_name) : bond_name_(std::move(bond_name)) {}

  // One line in the log (braid.bond, INFO) and in the history.
  void log(std::uint64_t now_ns, std::string text);
  const std::deque<BondEvent>& events() const { return events_; }
  const std::string& bond_name() const { return bond_name_; }

 private:
  std::string bond_name_;
  std::deque<BondEvent> events_;
};

}  // namespace braid::bond
