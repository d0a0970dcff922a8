#include "drivers/health/mlx5_health_source.hpp"

#include <algorithm>
#include <optional>

namespace braid::drivers {
namespace {

using health::Signal;

void set(health::CounterSnapshot& snapshot, Signal signal, std::uint64_t errors,
         std::uint64_t frames) {
  snapshot[static_cast<std::size_t>(signal)] = health::CounterSample{errors, frames};
}

}  // namespace

void LogOnce::operator()(const std::string& line) {
  if (std::find(said_.begin(), said_.end(), line) != said_.end()) return;
  said_.push_back(line);
  if (log_) log_(line);
}

Mlx5HealthSource::Mlx5HealthSource(std::string netdev, congestion::EthtoolReader ethtool,
                                   HealthLog log, Mlx5HealthNames names)
    : netdev_(std::move(netdev)),
      ethtool_(std::move(ethtool)),
      log_(std::move(log)),
      names_(std::move(names)) {}

void Mlx5HealthSource::read(health::CounterSnapshot& snapshot) {
  const congestion::EthtoolStats stats =
      ethtool_ ? ethtool_(netdev_)
               : congestion::EthtoolStats{{}, "ethtool stats of " + netdev_ + ": no reader bound"};
  if (!stats.error.empty()) {
    log_("mlx5 health counters unavailable: " + stats.error);
    return;
  }
  const std::string where = " in the ethtool stats of " + netdev_;
  auto find = [&](const std::string& name) -> std::optional<std::uint64_t> {
    if (const std::uint64_t* value = congestion::find_xstat(stats.stats, name)) return *value;
    log_("mlx5 health: no " + name + where + " (its signal stays with the ethdev counters)");
    return std::nullopt;
  };
  const std::optional<std::uint64_t> packets = find(names_.packets);
  if (!packets) return;
  const std::optional<std::uint64_t> crc = find(names_.crc);
  const std::uint64_t frames = *packets + crc.value_or(0);
  if (crc) set(snapshot, Signal::kCrc, *crc, frames);
  if (const auto symbol = find(names_.symbol)) set(snapshot, Signal::kSymbol, *symbol, frames);
  if (const std::uint64_t* bits = congestion::find_xstat(stats.stats, names_.corrected_bits)) {
    set(snapshot, Signal::kFecCorrected, *bits, frames);
  } else {
    std::uint64_t lanes = 0;
    bool any = false;
    for (const auto& [name, value] : stats.stats) {
      if (name.size() > names_.lane_prefix.size() + names_.lane_suffix.size() &&
          name.starts_with(names_.lane_prefix) && name.ends_with(names_.lane_suffix)) {
        lanes += value;
        any = true;
      }
    }
    if (any) {
      set(snapshot, Signal::kFecCorrected, lanes, frames);
    } else {
      log_("mlx5 health: no " + names_.corrected_bits + " nor " + names_.lane_prefix + "<n>" +
           names_.lane_suffix + where + " (fec_corrected stays with the ethdev counters)");
    }
  }
  if (const auto discards = find(names_.discards))
    set(snapshot, Signal::kDiscards, *discards, *packets);
}

}  // namespace braid::drivers
