#include "lacp/selection.hpp"

#include <algorithm>
#include <tuple>

namespace braid::lacp {
namespace {

bool individual(const Port& port) {
  return !has_bit(port.actor.state, state_bit::kAggregation) ||
         !has_bit(port.partner.state, state_bit::kAggregation);
}

bool same_lag(const Port& a, const Port& b) {
  return a.actor.key == b.actor.key && a.partner.system == b.partner.system &&
         a.partner.system_priority == b.partner.system_priority && a.partner.key == b.partner.key;
}

bool member(const Port& port) {
  return port.aggregator != kNoAggregator && port.selected != Selected::kUnselected;
}

// A port may choose an aggregator once it is detached and its Receive machine has partner
// information (received or defaulted).
bool may_select(const Port& port) {
  return port.selected == Selected::kUnselected && port.mux_state == MuxState::kDetached &&
         port.port_enabled && port.rx_state != RxState::kInitialize &&
         port.rx_state != RxState::kPortDisabled;
}

struct AggregatorScore {
  bool partnered = false;
  std::uint64_t bandwidth_mbps = 0;
  unsigned ports = 0;
};

}  // namespace

void SelectionLogic::assign_aggregators(std::vector<Port>& ports) const {
  for (std::size_t index = 0; index < ports.size(); ++index) {
    Port& port = ports[index];
    if (port.selected == Selected::kUnselected && port.mux_state == MuxState::kDetached) {
      port.aggregator = kNoAggregator;
    }
    if (!may_select(port)) continue;
    int chosen = kNoAggregator;
    if (!individual(port)) {
      for (const Port& other : ports) {
        if (&other != &port && member(other) && !individual(other) && same_lag(port, other)) {
          chosen = other.aggregator;
          break;
        }
      }
    }
    if (chosen == kNoAggregator) {
      auto in_use = [&](int aggregator) {
        return std::any_of(ports.begin(), ports.end(), [&](const Port& other) {
          return other.aggregator == aggregator && &other != &port;
        });
      };
      // Prefer the port's own aggregator, else the lowest free one (there are as many as ports).
      if (!in_use(static_cast<int>(index))) {
        chosen = static_cast<int>(index);
      } else {
        for (int aggregator = 0; aggregator < static_cast<int>(ports.size()); ++aggregator) {
          if (!in_use(aggregator)) {
            chosen = aggregator;
            break;
          }
        }
      }
    }
    port.aggregator = chosen;
    port.selected = Selected::kStandby;  // apply() promotes the active aggregator's ports
    port.just_selected = true;
  }
}

int SelectionLogic::choose_active(const std::vector<Port>& ports,
                                  const SystemConfig& system) const {
  std::vector<AggregatorScore> scores(ports.size());
  for (const Port& port : ports) {
    // A port that is UNSELECTED but not yet detached still counts for its aggregator, so that a
    // member re-selecting (new partner info) does not flip the active aggregator back and forth;
    // so does a withdrawn port, which is out of service only for a while.
    if (port.aggregator == kNoAggregator || !port.port_enabled) continue;
    AggregatorScore& score = scores[static_cast<std::size_t>(port.aggregator)];
    score.partnered = score.partnered || port.partnered();
    score.bandwidth_mbps += port.speed_mbps;
    ++score.ports;
  }
  const bool any_partnered =
      std::any_of(scores.begin(), scores.end(), [](const auto& s) { return s.partnered; });
  if (system.aggregator_select == AggregatorSelect::kStable && active_ != kNoAggregator &&
      static_cast<std::size_t>(active_) < scores.size()) {
    const AggregatorScore& current = scores[static_cast<std::size_t>(active_)];
    if (current.ports > 0 && (current.partnered || !any_partnered)) return active_;
  }
  int best = kNoAggregator;
  auto key = [&](const AggregatorScore& s) {
    const std::uint64_t metric =
        system.aggregator_select == AggregatorSelect::kCount ? s.ports : s.bandwidth_mbps;
    return std::make_tuple(s.partnered, metric, s.ports);
  };
  for (int aggregator = 0; aggregator < static_cast<int>(scores.size()); ++aggregator) {
    const AggregatorScore& score = scores[static_cast<std::size_t>(aggregator)];
    if (score.ports == 0) continue;
    if (best == kNoAggregator || key(score) > key(scores[static_cast<std::size_t>(best)])) {
      best = aggregator;
    }
  }
  return best;
}

bool SelectionLogic::apply(std::vector<Port>& ports, const SystemConfig& system,
                           const MachineContext& context) {
  // Within the active aggregator, the System with the better System ID decides which ports are
  // active when max_active_ports limits them (6.4.14.2); its port priority, then port number.
  std::vector<std::size_t> active_members;
  for (std::size_t index = 0; index < ports.size(); ++index) {
    if (member(ports[index]) && ports[index].aggregator == active_) {
      active_members.push_back(index);
    }
  }
  if (system.max_active_ports != 0 && active_members.size() > system.max_active_ports) {
    auto rank = [&](std::size_t index) {
      const Port& port = ports[index];
      const bool we_decide =
          !port.partnered() || std::tie(port.actor.system_priority, port.actor.system) <=
                                   std::tie(port.partner.system_priority, port.partner.system);
      const PortInfo& info = we_decide ? port.actor : port.partner;
      // A withdrawn port cannot use its place: it goes to a standby port, as a failed one's does.
      return std::make_tuple(!port.port_enabled || port.withdrawal.active, info.port_priority,
                             info.port_number);
    };
    std::stable_sort(active_members.begin(), active_members.end(),
                     [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  }
  bool changed = false;
  for (std::size_t index = 0; index < ports.size(); ++index) {
    Port& port = ports[index];
    if (!member(port)) continue;
    Selected wanted = Selected::kStandby;
    // A withdrawn port keeps its aggregator and waits STANDBY, like a port over
    // max_active_ports: DETACHED tells the partner it is out of sync (6.4.15) while LACPDUs keep
    // flowing, and SELECTED brings it back without a new selection.
    if (port.aggregator == active_ && !port.withdrawal.active) {
      const auto position = static_cast<std::size_t>(
          std::find(active_members.begin(), active_members.end(), index) - active_members.begin());
      if (system.max_active_ports == 0 || position < system.max_active_ports) {
        wanted = Selected::kSelected;
      }
    }
    if (wanted != port.selected || port.just_selected) {
      const char* from =
          port.just_selected ? to_string(Selected::kUnselected) : to_string(port.selected);
      context.transition(port, Machine::kSelection, from, to_string(wanted));
      changed = changed || wanted != port.selected;
      port.selected = wanted;
      port.just_selected = false;
    }
  }
  return changed;
}

bool SelectionLogic::step(std::vector<Port>& ports, const SystemConfig& system,
                          const MachineContext& context) {
  std::vector<int> before;
  before.reserve(ports.size());
  for (const Port& port : ports)
    before.push_back(port.aggregator);
  assign_aggregators(ports);
  bool changed = false;
  for (std::size_t index = 0; index < ports.size(); ++index) {
    changed = changed || before[index] != ports[index].aggregator;
  }
  const int active = choose_active(ports, system);
  changed = changed || active != active_;
  active_ = active;
  return apply(ports, system, context) || changed;
}

bool SelectionLogic::ready(const std::vector<Port>& ports, int aggregator,
                           std::uint64_t now_ns) const {
  if (aggregator == kNoAggregator) return false;
  return std::all_of(ports.begin(), ports.end(), [&](const Port& port) {
    return port.aggregator != aggregator || port.selected != Selected::kSelected ||
           !port.port_enabled || port.ready_n(now_ns);
  });
}

}  // namespace braid::lacp
