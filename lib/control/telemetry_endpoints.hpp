// braid's DPDK telemetry endpoints (/braid/ports, /braid/workers, ...), shown by
// dpdk-telemetry.py. Telemetry callbacks run on DPDK's telemetry thread (one per client), never
// on the protocol loop, so they only read what was published: a request that finds its
// endpoint's last render older than the freshness window asks the management thread for a new
// one (take_asked(), which posts the render to the protocol loop) and waits for it at most
// kRenderWaitMs, then turns what is published into rte_tel_data. A mutex guards the published
// Outputs (off the data path, so a lock is fine). Nothing renders while nobody asks.
//
//   telemetry.add("/braid/bond", "bond state and members", [&](Output& out) { ... });
//   telemetry.add_command("/braid/lacp", "LACP actor/partner per port", registry, "show lacp");
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/waker.hpp"
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

  static constexpr std::uint64_t kRenderWaitMs = 500;

  // What endpoint `index` (of paths()) shows now (on the protocol loop), and its publication
  // for the telemetry thread (anywhere; wakes requests waiting for it).
  using Rendered = std::shared_ptr<const Output>;
  Rendered render(std::size_t index) const;
  static void publish(const std::string& path, Rendered rendered, std::uint64_t rendered_ns);
  // From now on, a request whose endpoint was rendered more than `fresh_ns` before it asks
  // through `asked` (nullptr: no more asking, requests get what was published at once).
  static void listen_for_asks(const Waker* asked, std::uint64_t fresh_ns);
  // The paths asked for since the last call (management thread), and when each was asked.
  static std::vector<std::pair<std::string, std::uint64_t>> take_asked();
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  std::vector<std::string> paths_;
  std::vector<Producer> producers_;
};

}  // namespace braid::control
