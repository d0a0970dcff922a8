// Builds rte_eal_init's argument list from the config and the user's pass-through EAL
// arguments. Pure (the hugepage probe result is an input) so every rule is unit-tested.
#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"

namespace braid::engine {

struct EalArgs {
  std::vector<std::string> argv;   // argv[0] is the program name
  std::vector<std::string> notes;  // why braid added what it added, for the log
};

// Hugepages are usable when some are free and hugetlbfs is mounted. `sysfs_hugepages` is
// normally /sys/kernel/mm/hugepages, `proc_mounts` /proc/mounts (tests pass fixtures).
bool hugepages_available(const std::string& sysfs_hugepages = "/sys/kernel/mm/hugepages",
                         const std::string& proc_mounts = "/proc/mounts");

// A port device is a vdev (probed by braid after EAL init) when it starts with a vdev driver
// prefix; otherwise it is a bus address (PCI) that EAL must be allowed to probe.
bool is_vdev_device(const std::string& device);

EalArgs build_eal_args(const config::Config& config, const std::vector<std::string>& passthrough,
                       bool have_hugepages);

}  // namespace braid::engine
