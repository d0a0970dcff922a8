// A bond under test: a host ring port cross-connected to a bond of ring-port members, traffic
// of many flows injected on the host side and taken from each member's TX ring, with the test
// thread acting as braid's control thread (it calls Engine::poll_control).
#pragma once

#include <rte_ethdev.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "port/slow_protocols.hpp"
#include "traffic.hpp"

namespace braid::test {

class BondRig {
 public:
  BondRig(std::size_t members, const std::string& bond_settings, std::uint32_t flows = 4096)
      : host_(unique_name("host")), flows_(flows), tracker_(flows), received_(members, 0) {
    for (std::size_t m = 0; m < members; ++m) {
      members_.push_back(std::make_unique<RingPort>(unique_name("member")));
    }
    std::string yaml = "ports:\n  - {name: host, device: \"" + host_.name() + "\"}\n";
    std::string names;
    for (std::size_t m = 0; m < members; ++m) {
      yaml += "  - {name: m" + std::to_string(m) + ", device: \"" + members_[m]->name() + "\"}\n";
      names += (m ? ", m" : "m") + std::to_string(m);
    }
    yaml += "bonds:\n  - {name: up, members: [" + names + "]" + bond_settings + "}\n";
    yaml += "cross_connect: [[host, up]]\nworkers: {lcores: [1]}\n";
    engine_ = std::make_unique<engine::Engine>(config::parse_config(yaml, "bond-rig"));
  }

  engine::Engine& engine() { return *engine_; }
  bond::Bond& bond() { return engine_->bond(0); }
  RingPort& member(std::size_t m) { return *members_[m]; }
  FlowTracker& tracker() { return tracker_; }
  std::uint64_t received(std::size_t m) const { return received_[m]; }
  std::uint64_t injected() const { return injected_; }

  // Injects up to `count` packets (round robin over the flows), takes what the members sent,
  // and runs the control thread's work. Returns packets injected.
  std::uint32_t pump(std::uint32_t count = 64) {
    // Take what the members sent before injecting more: this thread is also the receiver, and
    // if it was descheduled, packets sent under an old table must be read before packets of a
    // flow its scheduler moved meanwhile (otherwise the harness itself would reorder them).
    drain_members();
    rte_mbuf* burst[64];
    std::uint32_t made = 0;
    for (; made < count && made < 64; ++made) {
      burst[made] = flows_.make(test_mempool(), next_flow_);
      if (burst[made] == nullptr) break;
      next_flow_ = (next_flow_ + 1) % flows_.size();
    }
    const unsigned queued =
        rte_ring_enqueue_burst(host_.to_port(), reinterpret_cast<void**>(burst), made, nullptr);
    rte_pktmbuf_free_bulk(burst + queued, made - queued);
    injected_ += queued;
    drain_members();
    engine_->poll_control(monotonic_ns());
    return queued;
  }

  void drain_members() {
    for (std::size_t m = 0; m < members_.size(); ++m) {
      members_[m]->drain([&](const rte_mbuf* frame) {
        if (drivers::is_slow_protocols(frame)) {
          ++slow_frames_;
          return;
        }
        const Stamp stamp = FlowSet::stamp_of(frame);
        tracker_.seen(stamp, static_cast<int>(m));
        if (observer_) observer_(stamp, static_cast<int>(m));
        ++received_[m];
      });
    }
  }

  // Pumps `packets` through and keeps draining until the engine has forwarded all of them.
  void send(std::uint64_t packets) {
    const std::uint64_t target = injected_ + packets;
    while (injected_ < target)
      pump(static_cast<std::uint32_t>(std::min<std::uint64_t>(64, target - injected_)));
    settle();
  }

  // Runs control work and drains until every injected packet is accounted for.
  void settle() {
    const std::uint64_t deadline = monotonic_ns() + 30'000'000'000ull;
    while (monotonic_ns() < deadline) {
      drain_members();
      engine_->poll_control(monotonic_ns());
      const engine::CounterTotals totals = engine_->totals();
      // Everything received has left (sent, dropped or handed to control): nothing in flight.
      if (totals.rx_packets[host_.port_id()] == injected_ &&
          totals.rx() == totals.tx() + totals.dropped() + totals.to_control) {
        break;
      }
    }
    for (int i = 0; i < 100; ++i)
      drain_members();
  }

  void run_control_for(std::uint64_t ns) {
    const std::uint64_t until = monotonic_ns() + ns;
    while (monotonic_ns() < until)
      pump(0);
  }

  std::uint64_t slow_frames() const { return slow_frames_; }
  // Called for every data packet taken from a member (benchmarks time events with it).
  void observe(std::function<void(const Stamp&, int member)> observer) {
    observer_ = std::move(observer);
  }

 private:
  RingPort host_;
  std::vector<std::unique_ptr<RingPort>> members_;
  FlowSet flows_;
  FlowTracker tracker_;
  std::unique_ptr<engine::Engine> engine_;
  std::vector<std::uint64_t> received_;
  std::uint64_t injected_ = 0;
  std::uint64_t slow_frames_ = 0;
  std::uint32_t next_flow_ = 0;
  std::function<void(const Stamp&, int)> observer_;
};

}  // namespace braid::test
