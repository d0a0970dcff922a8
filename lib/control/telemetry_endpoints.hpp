// braid's DPDK telemetry endpoints (/braid/ports, /braid/workers, ...), shown by
// dpdk-telemetry.py. Telemetry callbacks run on DPDK's telemetry thread, never on the control
// thread, so they only read snapshots: refresh() runs each endpoint's producer on the control
// thread and publishes the resulting Output under a mutex (off the data path, so a lock is
// fine); the callback turns the published Output into rte_tel_data.
//
//   telemetry.add("/braid/bond", "bond state and members", [&](Output& out) { ... });
//   telemetry.add_command("/braid/lacp", "LACP actor/partner per port", registry, "show lacp");
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "control/command_registry.hpp"
#include "control/output.hpp"

namespace braid::control {

class TelemetryEndpoints {
 public:
  using Producer = std::function<void(Output& out)>;

  // Registers the endpoint with DPDK telemetry (EAL must be up). Throws std::invalid_argument
  // for a bad path ("/braid/..." letters, digits, '_' and '/'; DPDK's limit is 56 bytes).
  void add(const std::string& path, const std::string& help, Producer producer);
  // An endpoint that publishes what a console command shows.
  void add_command(const std::string& path, const std::string& help,
                   const CommandRegistry& registry, std::string command_line);

  // What every endpoint shows now (on the protocol loop), and its publication for the telemetry
  // thread (anywhere). refresh() does both.
  using Snapshot = std::vector<std::pair<std::string, std::shared_ptr<const Output>>>;
  Snapshot collect() const;
  static void publish(Snapshot snapshot);
  void refresh() { publish(collect()); }
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  std::vector<std::string> paths_;
  std::vector<Producer> producers_;
};

}  // namespace braid::control
