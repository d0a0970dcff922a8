#include "engine/host_sockets.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/placement.hpp"

namespace braid::engine {
namespace {

// "3b:00.0" and "0000:3b:00.0,devargs" both name /sys/bus/pci/devices/0000:3b:00.0; anything
// else (a vdev, a port name) is not a PCI address.
std::string pci_address(const std::string& device) {
  std::string address = device.substr(0, device.find(','));
  if (address.size() == 7) address = "0000:" + address;
  if (address.size() != 12 || address[4] != ':' || address[7] != ':' || address[10] != '.')
    return {};
  return address;
}

}  // namespace

std::vector<int> port_sockets_from_sysfs(const config::Config& config,
                                         const std::string& sysfs_root) {
  std::vector<int> sockets;
  for (const config::PortConfig& port : config.ports) {
    int socket = kAnySocket;
    if (const std::string address = pci_address(port.device); !address.empty()) {
      std::ifstream file(sysfs_root + "/bus/pci/devices/" + address + "/numa_node");
      if (!(file >> socket) || socket < 0) socket = kAnySocket;
    }
    sockets.push_back(socket);
  }
  return sockets;
}

// Like scripts/lib/common.bash's cpu_node: the node directory that lists the CPU, else its
// package id, else 0.
int cpu_socket_from_sysfs(unsigned cpu, const std::string& sysfs_root) {
  std::error_code error;
  const std::string cpu_name = "cpu" + std::to_string(cpu);
  for (const auto& entry :
       std::filesystem::directory_iterator(sysfs_root + "/devices/system/node", error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.starts_with("node") &&
        std::filesystem::exists(entry.path() / cpu_name, error)) {
      return std::atoi(name.c_str() + 4);
    }
  }
  std::ifstream package(sysfs_root + "/devices/system/cpu/" + cpu_name +
                        "/topology/physical_package_id");
  int socket = 0;
  if (package >> socket && socket >= 0) return socket;
  return 0;
}

}  // namespace braid::engine
