// The forwarding engine: ports from the config, mempools per NUMA socket, workers placed per
// socket, cross-connect routes. EAL must already be initialised (braid's main or a test does
// it). Construction configures everything and throws on any problem; start() and stop() move
// packets and stop moving them.
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/counters.hpp"
#include "engine/placement.hpp"
#include "engine/worker.hpp"
#include "port/ethdev_port.hpp"

namespace braid::engine {

class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  explicit Engine(const config::Config& config);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // start(): start ports (first time) and launch the workers. stop(): stop the workers (they
  // drain their TX buffers first) and the ports. pause()/resume() stop and relaunch only the
  // workers, for the console's stop/start: links stay up and LACP keeps running.
  void start();
  void stop();
  void pause();
  void resume() { start(); }
  bool running() const { return running_.load(std::memory_order_relaxed); }

  CounterTotals totals() const;
  NicCounters nic_counters(std::size_t port_index) const;
  std::size_t port_count() const { return ports_.size(); }
  const drivers::EthdevPort& port(std::size_t index) const { return *ports_[index]; }
  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }
  const std::string& placement_report() const { return placement_report_; }
  const std::vector<std::string>& notes() const { return notes_; }  // adjustments, to log

 private:
  void check_worker_lcores() const;
  void create_mempools();
  void build_workers(const Placement& placement);

  config::Config config_;
  std::vector<std::unique_ptr<drivers::EthdevPort>> ports_;
  std::map<int, rte_mempool*> mempools_;  // by socket
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::size_t> peer_of_;  // cross-connect: port index -> egress port index
  std::atomic<bool> running_{false};
  bool ports_started_ = false;
  std::string placement_report_;
  std::vector<std::string> notes_;
};

}  // namespace braid::engine
