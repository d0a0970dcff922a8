// One DPDK ethdev as braid uses it: found or probed by device string, configured from the
// port's config (queues, RSS, MTU, promiscuous/allmulti), started, stopped and closed. Errors
// throw PortError with the port's name, the device and what to do.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"

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

  // `tx_queues` is the resolved count (config value, or one per worker). `pool` feeds RX.
  void configure(std::uint16_t tx_queues, rte_mempool* pool);
  void start();
  void stop();

  const std::string& name() const { return config_.name; }
  std::uint16_t id() const { return port_id_; }
  int socket() const;  // -1 when the device has no NUMA affinity
  std::uint16_t rx_queues() const { return config_.rx_queues; }
  std::uint16_t tx_queues() const { return tx_queues_; }
  std::uint16_t rx_descriptors() const { return rx_descriptors_; }
  std::uint16_t tx_descriptors() const { return tx_descriptors_; }
  const std::string& driver() const { return driver_; }
  const std::vector<std::string>& notes() const { return notes_; }  // adjustments made, to log

 private:
  [[noreturn]] void fail(const std::string& what, int error) const;
  std::uint64_t rss_hash_functions(std::uint64_t supported);

  config::PortConfig config_;
  std::uint16_t port_id_ = 0;
  bool probed_by_us_ = false;
  bool started_ = false;
  std::uint16_t tx_queues_ = 0;
  std::uint16_t rx_descriptors_ = 0;
  std::uint16_t tx_descriptors_ = 0;
  std::string driver_;
  std::vector<std::uint8_t> rss_key_;
  std::vector<std::string> notes_;
};

}  // namespace braid::drivers
