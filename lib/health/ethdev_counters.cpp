#include "health/ethdev_counters.hpp"

#include <optional>

namespace braid::health {
namespace {

std::vector<std::string>& names_of(XstatNames& names, Signal signal) {
  return names[static_cast<std::size_t>(signal)];
}

// The sum of the named xstats the port has; nullopt when it has none of them.
std::optional<std::uint64_t> sum_xstats(const XstatList& xstats,
                                        const std::vector<std::string>& names) {
  std::optional<std::uint64_t> sum;
  for (const std::string& name : names) {
    for (const auto& [have, value] : xstats) {
      if (have == name) {
        sum = sum.value_or(0) + value;
        break;
      }
    }
  }
  return sum;
}

}  // namespace

XstatNames default_xstat_names() {
  XstatNames names;
  names_of(names, Signal::kCrc) = {"rx_crc_errors"};
  names_of(names, Signal::kSymbol) = {"rx_symbol_err", "rx_symbol_errors"};
  names_of(names, Signal::kFecCorrected) = {"rx_fec_corrected_blocks", "rx_corrected_bits_phy"};
  names_of(names, Signal::kFecUncorrected) = {"rx_fec_uncorrectable_blocks",
                                              "rx_fec_uncorrected_blocks"};
  return names;
}

XstatNames xstat_names(const std::array<std::vector<std::string>, kSignalCount>& lists,
                       const std::array<bool, kSignalCount>& configured) {
  XstatNames names = default_xstat_names();
  for (std::size_t s = 0; s < kSignalCount; ++s) {
    if (configured[s]) names[s] = lists[s];
  }
  return names;
}

CounterSnapshot ethdev_snapshot(const EthdevCounters& counters, const XstatNames& names) {
  CounterSnapshot snapshot;
  if (!counters.stats_ok) return snapshot;
  for (std::size_t s = 0; s < kSignalCount; ++s) {
    if (names[s].empty()) continue;
    if (const std::optional<std::uint64_t> errors = sum_xstats(counters.xstats, names[s]))
      snapshot[s] = CounterSample{*errors, counters.ipackets + *errors};
  }
  auto& rx_errors = snapshot[static_cast<std::size_t>(Signal::kRxErrors)];
  if (!rx_errors && names[static_cast<std::size_t>(Signal::kRxErrors)].empty())
    rx_errors = CounterSample{counters.ierrors, counters.ipackets + counters.ierrors};
  auto& discards = snapshot[static_cast<std::size_t>(Signal::kDiscards)];
  if (!discards && names[static_cast<std::size_t>(Signal::kDiscards)].empty()) {
    const std::uint64_t lost = counters.imissed + counters.rx_nombuf;
    discards = CounterSample{lost, counters.ipackets + lost};
  }
  return snapshot;
}

}  // namespace braid::health
