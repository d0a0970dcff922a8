// 802.1AX-2014 6.4.14 Selection Logic. Aggregators are numbered like the ports (one per port,
// the recommended default of 6.4.14.2): a port joins the aggregator already used by ports with
// the same LAG ID (actor System and key, partner System and key), or takes a free one. An
// Individual port (either end says Aggregation = 0) always has an aggregator to itself.
//
// braid's bond is one logical link, so exactly one aggregator is active: its ports are SELECTED,
// ports of every other aggregator are STANDBY (they wait, out of sync, so the partner does not
// send to them either). SystemConfig::aggregator_select chooses the active one, preferring
// aggregators that have a real LACP partner over defaulted (fallback) ones. A port the bond
// withdrew (withdrawal.hpp) is STANDBY in its own aggregator, and still counts for it.
#pragma once

#include <vector>

#include "lacp/config.hpp"
#include "lacp/port.hpp"

namespace braid::lacp {

class SelectionLogic {
 public:
  // Runs one pass; returns true if any port's Selected or aggregator changed.
  bool step(std::vector<Port>& ports, const SystemConfig& system, const MachineContext& context);
  // The Ready variable of 6.4.8 for `aggregator`: every enabled SELECTED port of it has Ready_N.
  bool ready(const std::vector<Port>& ports, int aggregator, std::uint64_t now_ns) const;
  int active_aggregator() const { return active_; }

 private:
  void assign_aggregators(std::vector<Port>& ports) const;
  int choose_active(const std::vector<Port>& ports, const SystemConfig& system) const;
  bool apply(std::vector<Port>& ports, const SystemConfig& system, const MachineContext& context);

  int active_ = kNoAggregator;
};

}  // namespace braid::lacp
