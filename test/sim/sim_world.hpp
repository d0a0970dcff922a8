// A deterministic LACP world: N LacpSystem engines joined by virtual cables with a delay and a
// per-direction loss rate (seeded PRNG), a simulated clock, and scripted events. Time only moves
// in run_until*(); it jumps to the next frame delivery, scripted event, engine deadline or
// control-thread tick, whichever comes first, so minutes of protocol time take milliseconds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <vector>

#include "lacp/lacp_system.hpp"
#include "stepped_clock.hpp"

namespace braid::lacp::sim {

struct Endpoint {
  int engine = -1;
  std::size_t port = 0;
  bool operator==(const Endpoint&) const = default;
};

struct CableSpec {
  std::uint64_t delay_ns = 100'000;  // one way
  std::uint32_t speed_mbps = 25'000;
  double loss_a_to_b = 0.0;
  double loss_b_to_a = 0.0;
};

struct Captured {
  std::uint64_t time_ns;
  Endpoint from;
  std::vector<std::uint8_t> frame;
};

class World : public braid::sim::SteppedClock {
 public:
  explicit World(std::uint64_t seed = 1, std::uint64_t tick_ns = 100'000'000);

  // Returns the engine id. The ports start with link down.
  int add_engine(const SystemConfig& system, const std::vector<PortConfig>& ports);
  // Partner restart: the engine is rebuilt from scratch (e.g. with a new system MAC); its links
  // go down and come back up `down_ns` later.
  void restart_engine(int engine, const SystemConfig& system, const std::vector<PortConfig>& ports,
                      std::uint64_t down_ns);
  // braid's own restart: the process is gone for `gap_ns` while its links stay up (mlx5 and
  // veth links do): it sends and answers nothing. Then the new engine is built, `prepare` runs
  // on it (arming resume points, say) and its links come up in its own view.
  void restart_in_place(int engine, const SystemConfig& system,
                        const std::vector<PortConfig>& ports, std::uint64_t gap_ns,
                        std::function<void(LacpSystem&)> prepare);
  LacpSystem& engine(int id) { return *engines_.at(static_cast<std::size_t>(id)); }

  // Plugs a cable between two ports and brings both links up now.
  int connect(Endpoint a, Endpoint b, const CableSpec& spec = {});
  void set_link(int cable, bool up);
  // Unplugs the cable's b end and plugs it into `to` (another switch), after `down_ns`.
  void move_cable(int cable, Endpoint to, std::uint64_t down_ns);
  void set_loss(int cable, double a_to_b, double b_to_a);
  // Frames sent by this engine are dropped on every cable (a partner that stops sending).
  void mute(int engine, bool muted);
  // Data traffic on a cable (not LACP): while on and the cable is up, both ends report frames
  // from the far end every control tick (LacpSystem::on_neighbour_frames).
  void set_traffic(int cable, bool on);
  // The port refuses the next `frames` it is asked to send (a full TX queue).
  void refuse_tx(Endpoint from, unsigned frames);

  // Delivers a raw frame to an endpoint `delay_ns` from now, as if a third party sent it.
  void inject(Endpoint to, std::vector<std::uint8_t> frame, std::uint64_t delay_ns);
  void at(std::uint64_t time_ns, std::function<void()> action);

  // run_until(), run_until_true() and now() come from SteppedClock.

  void capture(bool on) { capture_ = on; }
  const std::vector<Captured>& captured() const { return captured_; }
  std::uint64_t frames_lost() const { return frames_lost_; }

 private:
  struct Cable {
    Endpoint a;
    Endpoint b;
    CableSpec spec;
    bool up = false;
    bool traffic = false;
    std::uint64_t epoch = 0;  // bumps on every change; in-flight frames of old epochs are lost
  };
  struct Pending {
    std::uint64_t time_ns;
    std::uint64_t sequence;
    std::function<void()> action;
    bool operator>(const Pending& other) const {
      return std::tie(time_ns, sequence) > std::tie(other.time_ns, other.sequence);
    }
  };

  bool transmit(int engine, std::size_t port, ByteSpan frame);
  void link_event(const Endpoint& end, bool up, std::uint32_t speed_mbps);
  std::optional<int> cable_at(const Endpoint& end) const;
  void step(std::uint64_t limit_ns) override;

  std::vector<std::unique_ptr<LacpSystem>> engines_;
  std::vector<bool> muted_;
  std::map<std::pair<int, std::size_t>, unsigned> refusals_;
  std::vector<Cable> cables_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> queue_;
  std::mt19937_64 random_;
  std::uint64_t tick_ns_;
  std::uint64_t next_tick_ns_ = 0;
  std::uint64_t sequence_ = 0;
  bool capture_ = false;
  std::vector<Captured> captured_;
  std::uint64_t frames_lost_ = 0;
};

// Helpers to build engines.
SystemConfig system_config(std::uint8_t id, std::uint16_t priority = 0x8000);
std::vector<PortConfig> port_configs(std::uint8_t id, int count,
                                     LacpActivity activity = LacpActivity::kActive,
                                     LacpTimeout timeout = LacpTimeout::kShort);

}  // namespace braid::lacp::sim
