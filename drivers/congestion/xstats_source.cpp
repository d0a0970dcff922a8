// Any PMD: congestion counters from ethdev xstats under configurable names (the defaults are the
// ixgbe/i40e/ice spellings of pause frames and the generic ethdev packet counters). An empty
// name means "this NIC has no such counter".
#include "congestion/source.hpp"

namespace braid::congestion {
namespace {

class XstatsSource final : public Source {
 public:
  XstatsSource(XstatsNames names, XstatsReader xstats, Logger logger)
      : names_(std::move(names)), xstats_(std::move(xstats)), missing_(std::move(logger)) {}

  std::string_view name() const override { return "xstats"; }

  sched::CongestionCounters read(std::size_t member, std::uint64_t) override {
    sched::CongestionCounters c;
    const Xstats xstats = xstats_ ? xstats_(member) : Xstats{};
    using F = sched::CongestionCounters;
    take(xstats, member, names_.pause, F::kPauseFrames, c.pause_frames, c);
    take(xstats, member, names_.pause_duration, F::kPauseDurationUs, c.pause_duration_us, c);
    take(xstats, member, names_.discards, F::kDiscards, c.discards, c);
    take(xstats, member, names_.ecn_marked, F::kEcnMarked, c.ecn_marked, c);
    take(xstats, member, names_.cnp, F::kCnp, c.cnp, c);
    take(xstats, member, names_.tx_packets, F::kTxPackets, c.tx_packets, c);
    return c;
  }

 private:
  void take(const Xstats& xstats, std::size_t member, const std::string& name,
            sched::CongestionCounters::Field field, std::uint64_t& out,
            sched::CongestionCounters& c) {
    if (name.empty()) return;
    if (const std::uint64_t* value = find_xstat(xstats, name)) {
      out = *value;
      c.present |= field;
    } else {
      missing_.report(member, "xstat " + name);
    }
  }

  XstatsNames names_;
  XstatsReader xstats_;
  MissingOnce missing_;
};

}  // namespace

std::unique_ptr<Source> make_xstats_source(XstatsNames names, XstatsReader xstats, Logger logger) {
  return std::make_unique<XstatsSource>(std::move(names), std::move(xstats), std::move(logger));
}

}  // namespace braid::congestion
