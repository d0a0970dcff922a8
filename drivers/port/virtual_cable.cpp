#include "port/virtual_cable.hpp"

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <stdexcept>
#include <vector>

namespace braid::drivers {
namespace {

constexpr unsigned kCableRingSize = 4096;
// Every TX queue of an end feeds the same ring (multi-producer): a worker per queue plus the
// control thread's LACP queue.
constexpr unsigned kCableTxQueues = 16;

rte_ring* cable_ring(const std::string& name) {
  if (rte_ring* ring = rte_ring_lookup(name.c_str())) return ring;
  rte_ring* ring = rte_ring_create(name.c_str(), kCableRingSize, SOCKET_ID_ANY, RING_F_SC_DEQ);
  if (ring == nullptr) throw std::runtime_error("cannot create ring " + name);
  return ring;
}

}  // namespace

bool is_cable_device(const std::string& device) {
  return device.rfind(kCablePrefix, 0) == 0;
}

std::uint16_t open_cable_end(const std::string& device) {
  const std::string spec = device.substr(std::string(kCablePrefix).size());
  const std::size_t slash = spec.rfind('/');
  const std::string name = slash == std::string::npos ? "" : spec.substr(0, slash);
  const std::string end = slash == std::string::npos ? "" : spec.substr(slash + 1);
  if (name.empty() || name.size() > 20 || (end != "a" && end != "b")) {
    throw std::runtime_error("device \"" + device +
                             "\": a cable end is cable:NAME/a or cable:NAME/b (NAME up to 20 "
                             "characters)");
  }
  const std::string ethdev = "cable_" + name + "_" + end;
  std::uint16_t port_id = 0;
  if (rte_eth_dev_get_port_by_name(ethdev.c_str(), &port_id) == 0) return port_id;
  rte_ring* a_to_b = cable_ring("cab_" + name + "_ab");
  rte_ring* b_to_a = cable_ring("cab_" + name + "_ba");
  rte_ring* rx = end == "a" ? b_to_a : a_to_b;
  std::vector<rte_ring*> tx(kCableTxQueues, end == "a" ? a_to_b : b_to_a);
  const int id = rte_eth_from_rings(ethdev.c_str(), &rx, 1, tx.data(), kCableTxQueues, 0);
  if (id < 0) throw std::runtime_error("device \"" + device + "\": rte_eth_from_rings failed");
  // rte_eth_from_rings prefixes the name; it is what rte_eth_dev_get_port_by_name finds later.
  return static_cast<std::uint16_t>(id);
}

}  // namespace braid::drivers
