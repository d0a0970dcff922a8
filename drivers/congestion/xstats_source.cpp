// Any PMD: congestion counters from ethdev xstats under configurable names (the defaults are the
// ixgbe/i40e/ice spellings of pause frames and the generic ethdev packet counters). An empty
// name means "this NIC has no such counter". A pause name with "{prio}" is read once per PFC
// priority in use; one without is a link-level counter that every priority sees.
#include "congestion/source.hpp"

namespace braid::congestion {
namespace {

using F = sched::CongestionCounters;

constexpr std::string_view kPrioField = "{prio}";

std::string for_priority(const std::string& pattern, std::size_t priority) {
  std::string name = pattern;
  const std::size_t at = name.find(kPrioField);
  if (at != std::string::npos) name.replace(at, kPrioField.size(), std::to_string(priority));
  return name;
}

class XstatsSource final : public Source {
 public:
  XstatsSource(XstatsNames names, XstatsReader xstats, Logger logger, PfcPriorities pfc)
      : names_(std::move(names)),
        xstats_(std::move(xstats)),
        missing_(std::move(logger)),
        pfc_(pfc) {}

  std::string_view name() const override { return "xstats"; }

  F read(std::size_t member, std::uint64_t) override {
    F c;
    const Xstats xstats = xstats_ ? xstats_(member) : Xstats{};
    for (std::size_t p = 0; p < sched::kPfcPriorities; ++p) {
      if (!pfc_.uses(p)) continue;
      F pauses;
      if (take(xstats, member, for_priority(names_.pause, p), F::kPauseFrames, pauses.pause_frames,
               pauses))
        c.set_priority_pause_frames(p, pauses.pause_frames);
      if (take(xstats, member, for_priority(names_.pause_duration, p), F::kPauseDurationUs,
               pauses.pause_duration_us, pauses))
        c.set_priority_pause_duration_us(p, pauses.pause_duration_us);
      if (p != pfc_.bond) continue;
      c.present |= pauses.present;
      c.pause_frames = pauses.pause_frames;
      c.pause_duration_us = pauses.pause_duration_us;
    }
    take(xstats, member, names_.discards, F::kDiscards, c.discards, c);
    take(xstats, member, names_.ecn_marked, F::kEcnMarked, c.ecn_marked, c);
    take(xstats, member, names_.cnp, F::kCnp, c.cnp, c);
    take(xstats, member, names_.tx_packets, F::kTxPackets, c.tx_packets, c);
    return c;
  }

 private:
  // A link-level name is looked up once per priority: the same value, the same single log line.
  bool take(const Xstats& xstats, std::size_t member, const std::string& name, F::Field field,
            std::uint64_t& out, F& c) {
    if (name.empty()) return false;
    if (const std::uint64_t* value = find_xstat(xstats, name)) {
      out = *value;
      c.present |= field;
      return true;
    }
    missing_.report(member, "xstat " + name);
    return false;
  }

  XstatsNames names_;
  XstatsReader xstats_;
  MissingOnce missing_;
  PfcPriorities pfc_;
};

}  // namespace

std::unique_ptr<Source> make_xstats_source(XstatsNames names, XstatsReader xstats, Logger logger,
                                           PfcPriorities pfc) {
  return std::make_unique<XstatsSource>(std::move(names), std::move(xstats), std::move(logger),
                                        pfc);
}

}  // namespace braid::congestion
