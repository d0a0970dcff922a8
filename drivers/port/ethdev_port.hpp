// One DPDK ethdev as braid uses it: found or probed by device string, configured from the
// port's config (queues, RSS, MTU, promiscuous/allmulti), started, stopped and closed. Errors
// throw PortError with the port's name, the device and what to do.
#pragma once

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "port/slow_steering.hpp"

namespace braid::drivers {

class PortError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class EthdevPort {
 public:
  // Finds the ethdev named by the device string (text before the first comma), probing it as a
  // vdev or bus device when it does not exist yet.
  EthdevPort(const config::PortConfig& config);
  ~EthdevPort();
  EthdevPort(const EthdevPort&) = delete;
  EthdevPort& operator=(const EthdevPort&) = delete;

  struct Queues {
    std::uint16_t tx = 1;  // the resolved count (config value or one per worker, + control)
    // > 0: one more RX queue after the data queues, of this many descriptors, for Slow
    // Protocols frames (steer_slow_protocols). 0: none.
    std::uint16_t slow_rx_descriptors = 0;
    // > 0: the last TX queue is a bond's control queue (LACPDUs, marker responses) with this
    // many descriptors (fitted to the device), instead of tx_descriptors. 0: no control queue.
    std::uint16_t control_tx_descriptors = 0;
    // Every TX queue only ever sees mbufs of one mempool (engine: fast_free_safe), so the
    // device may free them without checking their pool (RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE).
    bool single_pool_tx = false;
  };
  // `pool` feeds RX.
  void configure(const Queues& queues, rte_mempool* pool);
  void start();
  // Removes slow-protocol steering first (rules go before the port stops).
  void stop();
  // Link down/up at the device (rte_eth_dev_set_link_down/up): "" or why not.
  std::string set_link(bool up);

  // On a started port configured with a slow queue: steer Slow Protocols frames there (an
  // rte_flow rule, or the virtual cable's emulation). "" on success, else why not, in the PMD's
  // words. A stop() removes the steering and the next start() restores it.
  std::string steer_slow_protocols();
  // After steer_slow_protocols() failed: the slow queue becomes one more data queue for the
  // workers (rx_queues() counts it), since whatever the device spreads onto it must be
  // forwarded. Reconfiguring without it instead would fail on PMDs that need as many RX as TX
  // queues (net_tap).
  void hand_slow_queue_to_workers();
  // The RX queue Slow Protocols frames are steered to while steering is on.
  std::optional<std::uint16_t> slow_rx_queue() const;
  // How they are steered ("" while not).
  std::string slow_steering_description() const;

  const std::string& name() const { return config_.name; }
  std::uint16_t id() const { return port_id_; }
  int socket() const;  // -1 when the device has no NUMA affinity
  // The RX queues workers poll: the configured data queues, plus the slow queue when the device
  // refused to steer to it (hand_slow_queue_to_workers).
  std::uint16_t rx_queues() const {
    return static_cast<std::uint16_t>(config_.rx_queues + (slow_queue_to_workers_ ? 1 : 0));
  }
  std::uint16_t tx_queues() const { return tx_queues_; }
  std::uint16_t rx_descriptors() const { return rx_descriptors_; }
  std::uint16_t tx_descriptors() const { return tx_descriptors_; }
  // The control TX queue's descriptors (0: none); a lazily freeing PMD holds up to this many
  // of the bond's control mbufs (engine: control pool sizing).
  std::uint16_t control_tx_descriptors() const { return control_tx_descriptors_; }
  // The PMD raises link-status interrupts and braid asked for them (intr_conf.lsc).
  bool lsc_interrupts() const { return lsc_interrupts_; }
  // The kernel interface behind a PMD whose link state does not follow it (net_af_packet):
  // its ifindex, whose link braid takes from the kernel (kernel_links.hpp); 0: none.
  int kernel_ifindex() const { return kernel_ifindex_; }
  bool fast_free() const { return fast_free_; }
  // Every TX queue of the port only ever sees one mempool (the engine's topology analysis).
  bool single_pool_tx() const { return single_pool_tx_; }
  const std::string& driver() const { return driver_; }
  // An NVIDIA ConnectX port (the mlx5 PMD: driver "mlx5_pci").
  bool is_mlx5() const { return driver_.find("mlx5") != std::string::npos; }
  const std::vector<std::string>& notes() const { return notes_; }  // adjustments made, to log

 private:
  [[noreturn]] void fail(const std::string& what, int error) const;
  std::uint64_t rss_hash_functions(std::uint64_t supported);
  rte_eth_conf device_conf(bool with_slow_queue, const rte_eth_dev_info& info);
  void set_up_queues(bool with_slow_queue, const rte_eth_dev_info& info, rte_mempool* pool);
  std::string install_steering();

  config::PortConfig config_;
  std::uint16_t port_id_ = 0;
  bool probed_by_us_ = false;
  bool started_ = false;
  std::uint16_t tx_queues_ = 0;
  std::uint16_t slow_rx_descriptors_ = 0;  // requested; 0: no slow queue
  bool has_slow_queue_ = false;            // configured with it
  bool slow_queue_to_workers_ = false;     // ... and it is a data queue now
  bool steer_on_start_ = false;            // steering succeeded once: restore it on start()
  std::string no_slow_queue_reason_;       // requested but not configured: why
  std::string rss_unrestricted_reason_;    // "": the RSS table names data queues only
  std::uint64_t rss_functions_ = 0;  // RSS hash functions the device offers of those configured
  std::unique_ptr<SlowSteering> steering_;
  std::uint16_t rx_descriptors_ = 0;
  std::uint16_t tx_descriptors_ = 0;
  std::uint16_t control_tx_descriptors_ = 0;
  bool lsc_interrupts_ = false;
  int kernel_ifindex_ = 0;
  bool fast_free_ = false;
  bool single_pool_tx_ = false;
  std::string driver_;
  std::vector<std::uint8_t> rss_key_;
  std::vector<std::string> notes_;
};

}  // namespace braid::drivers
