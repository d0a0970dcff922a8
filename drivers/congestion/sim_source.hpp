// sim: scripted congestion for tests and demos, and the counters of emulated links. Each member
// has a constant paused fraction and mark rate (from the config) that accumulate with time, and
// tests can set any counter directly (CNPs are reported, 0 unless set, so that every congestion
// metric exists); a member whose port has a link emulator attached
// (drivers/linkemu) reports what that link measured instead.
#pragma once

#include "congestion/source.hpp"

namespace braid::congestion {

class SimSource final : public Source {
 public:
  SimSource(SimSettings settings, std::size_t members);

  std::string_view name() const override { return "sim"; }
  sched::CongestionCounters read(std::size_t member, std::uint64_t now_ns) override;

  // Scripting: replace a member's counters, or change its paused fraction from now on.
  void set(std::size_t member, const sched::CongestionCounters& counters);
  void set_pause_permille(std::size_t member, std::uint32_t permille);

 private:
  SimSettings settings_;
  std::vector<sched::CongestionCounters> counters_;
  std::vector<double> pause_us_;
  std::vector<double> marks_;
  std::vector<std::uint64_t> last_ns_;
};

}  // namespace braid::congestion
