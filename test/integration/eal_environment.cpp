#include "eal_environment.hpp"

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace braid::test {

void EalEnvironment::SetUp() {
  const std::string prefix = "--file-prefix=braid-it-" + std::to_string(getpid());
  std::vector<std::string> args = {"integration_test", "--no-huge", "-m", "512", "--no-pci"};
  args.insert(args.end(), lcores_.begin(), lcores_.end());
  args.push_back(prefix);
  args.emplace_back("--log-level=lib.eal:warning");
  std::vector<char*> argv;
  for (std::string& arg : args)
    argv.push_back(arg.data());
  ASSERT_GE(rte_eal_init(static_cast<int>(argv.size()), argv.data()), 0) << "EAL init failed";
}

void EalEnvironment::TearDown() {
  rte_eal_cleanup();
}

std::string unique_name(const std::string& stem) {
  static std::atomic<unsigned> counter{0};
  return stem + std::to_string(counter.fetch_add(1));
}

rte_mempool* test_mempool() {
  static rte_mempool* pool =
      rte_pktmbuf_pool_create("braid_test_pool", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
  return pool;
}

RingPort::RingPort(const std::string& name, unsigned tx_queues, unsigned ring_size,
                   unsigned rx_queues)
    : name_(name) {
  for (unsigned q = 0; q < rx_queues; ++q) {
    const std::string ring = name + "_rx" + (q == 0 ? "" : std::to_string(q));
    to_port_.push_back(rte_ring_create(ring.c_str(), ring_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ));
    if (to_port_.back() == nullptr) throw std::runtime_error("ring create failed");
  }
  from_port_ = rte_ring_create((name + "_tx").c_str(), ring_size, 0, RING_F_SC_DEQ);
  if (from_port_ == nullptr) throw std::runtime_error("ring create failed");
  std::vector<rte_ring*> tx_rings(tx_queues, from_port_);
  const int id =
      rte_eth_from_rings(name.c_str(), to_port_.data(), rx_queues, tx_rings.data(), tx_queues, 0);
  if (id < 0) throw std::runtime_error("rte_eth_from_rings failed for " + name);
  port_id_ = static_cast<std::uint16_t>(id);
  char ethdev_name[RTE_ETH_NAME_MAX_LEN];
  rte_eth_dev_get_name_by_port(port_id_, ethdev_name);
  name_ = ethdev_name;  // the ring PMD prefixes the name it was given
  // Ring ports start with an all-zero MAC; give each a locally administered unicast one, as a
  // real NIC would have (LACP identifies systems and ports by MAC).
  rte_ether_addr mac{{0x02, 0x00, 0x00, 0x00, static_cast<std::uint8_t>(port_id_ >> 8),
                      static_cast<std::uint8_t>(port_id_)}};
  rte_eth_dev_default_mac_addr_set(port_id_, &mac);
  for (std::uint16_t queue = 0; queue < tx_queues; ++queue) {
    callbacks_.push_back(rte_eth_add_tx_callback(port_id_, queue, stamp_send_time, nullptr));
  }
}

// Runs in the sending thread inside rte_eth_tx_burst: records when each test frame (64 bytes
// and up, see traffic.hpp's Stamp) left, so reordering is judged by send order.
std::uint16_t RingPort::stamp_send_time(std::uint16_t, std::uint16_t, rte_mbuf** packets,
                                        std::uint16_t count, void*) {
  const std::uint64_t now = rte_rdtsc();
  for (std::uint16_t i = 0; i < count; ++i) {
    const auto* bytes = rte_pktmbuf_mtod(packets[i], const std::uint8_t*);
    if (packets[i]->data_len < kSendTimeOffset + sizeof now) continue;
    if (bytes[12] == 0x88 && bytes[13] == 0x09) continue;  // LACPDUs and markers stay intact
    // ... and micro-BFD (01-00-5E-90-00-01): its UDP checksum covers those bytes.
    if (bytes[0] == 0x01 && bytes[1] == 0x00 && bytes[2] == 0x5e && bytes[3] == 0x90) continue;
    std::memcpy(rte_pktmbuf_mtod(packets[i], char*) + kSendTimeOffset, &now, sizeof now);
  }
  return count;
}

bool remove_tx_callbacks(std::uint16_t port_id,
                         const std::vector<const rte_eth_rxtx_callback*>& callbacks) {
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(port_id, &info) != 0) return false;
  if (callbacks.size() > info.nb_tx_queues) {
    // The engine configured fewer TX queues than the callbacks were added on (a bond member
    // with one worker and no control queue, say): the rest would stay in the slot.
    rte_eth_conf conf{};
    if (rte_eth_dev_configure(port_id, std::max<std::uint16_t>(info.nb_rx_queues, 1),
                              static_cast<std::uint16_t>(callbacks.size()), &conf) != 0) {
      ADD_FAILURE() << "cannot give port " << port_id << " its TX queues back to remove its "
                    << "callbacks: the next port in its slot inherits them";
      return false;
    }
  }
  for (std::uint16_t queue = 0; queue < callbacks.size(); ++queue) {
    if (callbacks[queue] != nullptr &&
        rte_eth_remove_tx_callback(port_id, queue, callbacks[queue]) != 0) {
      ADD_FAILURE() << "cannot remove the TX callback of port " << port_id << " queue " << queue;
      return false;
    }
  }
  return true;
}

RingPort::~RingPort() {
  // Callbacks outlive a closed port in its ethdev slot; the next port there must not inherit
  // them (one that stamps send times corrupted the LLDPDUs of a later test's bond).
  remove_tx_callbacks(port_id_, callbacks_);
  rte_eth_dev_close(port_id_);  // the engine stopped it
  to_port_.push_back(from_port_);
  for (rte_ring* ring : to_port_) {
    rte_mbuf* leftover = nullptr;
    while (rte_ring_dequeue(ring, reinterpret_cast<void**>(&leftover)) == 0)
      rte_pktmbuf_free(leftover);
    rte_ring_free(ring);
  }
}

}  // namespace braid::test
