#include "engine/eal_args.hpp"

#include <filesystem>
#include <fstream>
#include <string_view>

namespace braid::engine {
namespace {

bool has_option(const std::vector<std::string>& args,
                std::initializer_list<std::string_view> names) {
  for (const std::string& arg : args) {
    for (std::string_view name : names) {
      if (arg == name) return true;
      // --long=value
      if (name.starts_with("--") && arg.starts_with(name) && arg.size() > name.size() &&
          arg[name.size()] == '=') {
        return true;
      }
      // -lVALUE
      if (!name.starts_with("--") && arg.starts_with(name) && arg.size() > name.size()) return true;
    }
  }
  return false;
}

std::uint64_t read_number(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::uint64_t value = 0;
  file >> value;
  return file ? value : 0;
}

}  // namespace

bool hugepages_available(const std::string& sysfs_hugepages, const std::string& proc_mounts) {
  std::uint64_t free_pages = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_hugepages, error)) {
    free_pages += read_number(entry.path() / "free_hugepages");
  }
  if (free_pages == 0) return false;
  std::ifstream mounts(proc_mounts);
  std::string device, mount_point, fs_type, rest;
  while (mounts >> device >> mount_point >> fs_type && std::getline(mounts, rest)) {
    if (fs_type == "hugetlbfs") return true;
  }
  return false;
}

bool is_vdev_device(const std::string& device) {
  // DPDK vdev drivers are named net_*, eth_* (legacy aliases), crypto_*, etc.; bus addresses
  // (0000:3b:00.0, 3b:00.0) start with a hex digit.
  // cable:NAME/a|b ends are braid's own ring pairs (drivers/port/virtual_cable.hpp).
  return device.starts_with("net_") || device.starts_with("eth_") || device.starts_with("cable:");
}

EalArgs build_eal_args(const config::Config& config, const std::vector<std::string>& passthrough,
                       bool have_hugepages) {
  EalArgs result;
  std::vector<std::string> user = config.eal.args;
  user.insert(user.end(), passthrough.begin(), passthrough.end());
  std::vector<std::string>& argv = result.argv;
  argv.push_back("braid");

  if (!has_option(user, {"--file-prefix"}))
    argv.push_back("--file-prefix=" + config.eal.file_prefix);
  if (!has_option(user, {"-l", "-c", "--lcores"})) {
    std::string lcores = std::to_string(config.eal.main_lcore);
    for (unsigned lcore : config.workers.lcores)
      lcores += "," + std::to_string(lcore);
    argv.push_back("-l");
    argv.push_back(lcores);
  }
  if (!has_option(user, {"--main-lcore"})) {
    argv.push_back("--main-lcore=" + std::to_string(config.eal.main_lcore));
  }
  if (!have_hugepages && !has_option(user, {"--no-huge", "-m", "--socket-mem"})) {
    argv.push_back("--no-huge");
    argv.push_back("-m");
    argv.push_back(std::to_string(config.eal.no_huge_memory_mb));
    result.notes.push_back("no free hugepages (or no hugetlbfs mount): running with --no-huge -m " +
                           std::to_string(config.eal.no_huge_memory_mb) +
                           " (fine for the demo and tests; reserve hugepages for performance, see "
                           "scripts/hugepages)");
  }
  bool any_bus_device = false;
  for (const config::PortConfig& port : config.ports) {
    if (is_vdev_device(port.device)) continue;
    any_bus_device = true;
    argv.push_back("-a");
    argv.push_back(port.device);
  }
  if (!any_bus_device && !has_option(user, {"-a", "-b", "--allow", "--block", "--no-pci"})) {
    argv.push_back("--no-pci");
    result.notes.push_back("all ports are virtual devices: not scanning PCI (--no-pci)");
  }
  argv.insert(argv.end(), user.begin(), user.end());
  return result;
}

}  // namespace braid::engine
