// A deterministic BFD world: two sessions at the ends of one simulated member link, with a delay,
// a per-frame loss rate (seeded PRNG) and a switch to cut it. Every packet travels as a whole
// frame (frame.hpp: built, then parsed and checked at the far end), so the simulation runs the
// codecs too. Time only moves in run_until*(); it jumps to the next delivery or session deadline,
// so a minute of 10 ms timers takes milliseconds.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <vector>

#include "bfd/frame.hpp"
#include "bfd/session.hpp"
#include "stepped_clock.hpp"

namespace braid::bfd::sim {

struct LinkSpec {
  std::uint64_t delay_ns = 50'000;  // one way
  double loss = 0.0;                // per frame, each direction
  Encapsulation encapsulation = Encapsulation::kMicroBfd;
  bool ipv6 = false;
};

class World : public braid::sim::SteppedClock {
 public:
  static constexpr int kEnds = 2;

  explicit World(const LinkSpec& link, std::uint64_t seed = 1);

  // (Re)starts the session at `end` (0 or 1) from scratch, as a restarted partner would.
  void start(int end, const SessionConfig& config);
  Session& session(int end) { return *ends_.at(static_cast<std::size_t>(end)).session; }
  const std::vector<StateChange>& changes(int end) const {
    return ends_.at(static_cast<std::size_t>(end)).changes;
  }
  // Frames that reached `end` and were parsed, with their arrival times.
  const std::vector<std::uint64_t>& arrivals(int end) const {
    return ends_.at(static_cast<std::size_t>(end)).arrivals;
  }

  // A cut link drops every frame, those in flight included; carrier is not modelled (BFD must
  // find out by itself).
  void cut(bool cut);
  void set_loss(double loss) { link_.loss = loss; }

  // run_until(), run_until_true() and now() come from SteppedClock.
  std::uint64_t frames_sent() const { return frames_sent_; }
  std::uint64_t frames_lost() const { return frames_lost_; }

 private:
  struct End {
    std::unique_ptr<Session> session;
    FrameSpec spec;
    ReceiveFilter filter;
    std::vector<StateChange> changes;
    std::vector<std::uint64_t> arrivals;
  };
  struct InFlight {
    std::uint64_t time_ns;
    std::uint64_t sequence;
    int to;
    std::uint64_t epoch;
    Frame frame;
    bool operator>(const InFlight& other) const {
      return time_ns != other.time_ns ? time_ns > other.time_ns : sequence > other.sequence;
    }
  };

  void transmit(int from, const ControlPacket& packet);
  void deliver(const InFlight& frame);
  void step(std::uint64_t limit_ns) override;

  LinkSpec link_;
  std::array<End, kEnds> ends_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> in_flight_;
  std::mt19937_64 random_;
  std::uint64_t seed_;
  bool cut_ = false;
  std::uint64_t epoch_ = 0;  // bumps on every cut; frames of older epochs are lost
  std::uint64_t sequence_ = 0;
  std::uint64_t frames_sent_ = 0;
  std::uint64_t frames_lost_ = 0;
};

}  // namespace braid::bfd::sim
