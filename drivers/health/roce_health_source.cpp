#include "drivers/health/roce_health_source.hpp"

#include <fstream>

namespace braid::drivers {

RoceHealthSource::RoceHealthSource(std::string sysfs_root, const std::string& device, HealthLog log,
                                   RoceHealthNames names)
    : log_(std::move(log)), names_(std::move(names)) {
  const std::size_t colon = device.find(':');
  const std::string port = colon == std::string::npos ? "1" : device.substr(colon + 1);
  port_dir_ = sysfs_root + "/" + device.substr(0, colon) + "/ports/" + port;
}

std::optional<std::uint64_t> RoceHealthSource::read_counter(const std::string& path) {
  std::ifstream file(path);
  std::uint64_t value = 0;
  if (file >> value) return value;
  log_("roce health: cannot read " + path + " (left out of roce_retransmit)");
  return std::nullopt;
}

std::optional<health::CounterSample> RoceHealthSource::read() {
  const std::optional<std::uint64_t> packets =
      read_counter(port_dir_ + "/counters/" + names_.packets);
  std::uint64_t retransmits = 0;
  bool any = false;
  for (const std::string& name : names_.retransmits) {
    if (const auto value = read_counter(port_dir_ + "/hw_counters/" + name)) {
      retransmits += *value;
      any = true;
    }
  }
  if (!packets || !any) return std::nullopt;
  return health::CounterSample{retransmits, *packets};
}

}  // namespace braid::drivers
