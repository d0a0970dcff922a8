// Two LACP systems in one engine, as braid's demo wires them: bond "near" (members m0..m{n-1})
// and bond "far" (p0..p{n-1}, another system id, standing in for the switch) joined by virtual
// cables (drivers/port/virtual_cable.hpp), each bond cross-connected to a host ring port the test
// owns. Traffic the test injects at the far host crosses far -> near (what the switch sends
// braid) and arrives at the near host; an RX callback on each near member counts the data frames
// that crossed its cable, before anything else on that port sees them (an emulated NIC's CRC
// errors included). The test thread is braid's protocol loop (it calls Engine::poll_control).
#pragma once

#include <rte_ethdev.h>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bond_rig.hpp"
#include "common/clock.hpp"
#include "config/config_loader.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "port/slow_protocols.hpp"
#include "traffic.hpp"

namespace braid::test {

class TwoBondsRig {
 public:
  // `near_settings`, `far_settings`: more keys of each bond (", health: {...}"); the near
  // bond runs lacp rate fast unless its settings have a lacp map of their own.
  TwoBondsRig(std::size_t members, const std::string& near_settings,
              const std::string& far_settings = "", std::uint32_t flows = 1024)
      : near_host_(unique_name("near"), 2, 8192),
        far_host_(unique_name("far"), 2, 8192),
        flows_(flows),
        crossed_(members) {
    const std::string cable = unique_name("cab");
    std::string yaml = "ports:\n  - {name: near_host, device: \"" + near_host_.name() +
                       "\"}\n  - {name: far_host, device: \"" + far_host_.name() + "\"}\n";
    std::string near_members;
    std::string far_members;
    for (std::size_t m = 0; m < members; ++m) {
      const std::string i = std::to_string(m);
      yaml += "  - {name: m" + i + ", device: \"cable:" + cable + i + "/a\"}\n";
      yaml += "  - {name: p" + i + ", device: \"cable:" + cable + i + "/b\"}\n";
      near_members += (m ? ", m" : "m") + i;
      far_members += (m ? ", p" : "p") + i;
    }
    // Fast LACP unless the settings bring their own lacp map.
    const std::string near_lacp =
        near_settings.find("lacp:") == std::string::npos ? ", lacp: {rate: fast}" : "";
    yaml += "bonds:\n  - {name: near, members: [" + near_members + "], mode: lacp" + near_lacp +
            near_settings + "}\n";
    yaml += "  - {name: far, members: [" + far_members +
            "], mode: lacp, mac: \"02:5a:00:00:00:01\", lacp: {rate: fast, system_priority: "
            "100}" +
            far_settings + "}\n";
    yaml += "cross_connect: [[near_host, near], [far_host, far]]\nworkers: {lcores: [1]}\n";
    engine_ = std::make_unique<engine::Engine>(config::parse_config(yaml, "two-bonds-rig"));
    for (std::size_t m = 0; m < members; ++m) {
      const std::uint16_t port = near().members()[m].port_id;
      counters_.push_back(rte_eth_add_rx_callback(port, 0, count_crossing, &crossed_[m]));
    }
  }

  ~TwoBondsRig() {
    engine_->stop();
    for (std::size_t m = 0; m < counters_.size(); ++m) {
      if (counters_[m] != nullptr)
        rte_eth_remove_rx_callback(near().members()[m].port_id, 0, counters_[m]);
    }
  }
  TwoBondsRig(const TwoBondsRig&) = delete;
  TwoBondsRig& operator=(const TwoBondsRig&) = delete;

  engine::Engine& engine() { return *engine_; }
  bond::Bond& near() { return engine_->bond(0); }
  bond::Bond& far() { return engine_->bond(1); }

  // Both bonds collect and distribute on every member.
  bool converged() {
    for (bond::Bond* bond : {&near(), &far()}) {
      for (const bond::MemberStatus& member : bond->members()) {
        if (!member.collecting || !member.distributing) return false;
      }
    }
    return true;
  }
  bool converge(std::uint64_t limit_ns = 20'000'000'000ull) {
    const std::uint64_t until = monotonic_ns() + limit_ns;
    while (!converged() && monotonic_ns() < until)
      pump(0);
    return converged();
  }

  // Injects up to `count` packets at the far host (round robin over the flows), takes what
  // arrived at the near host, runs the control work. Returns packets injected.
  std::uint32_t pump(std::uint32_t count = 32) {
    drain();
    std::array<rte_mbuf*, 64> burst;
    std::uint32_t made = 0;
    for (; made < count && made < burst.size(); ++made) {
      burst[made] = flows_.make(test_mempool(), next_flow_);
      if (burst[made] == nullptr) break;
      next_flow_ = (next_flow_ + 1) % flows_.size();
    }
    const unsigned taken = rte_ring_enqueue_burst(
        far_host_.to_port(), reinterpret_cast<void**>(burst.data()), made, nullptr);
    rte_pktmbuf_free_bulk(burst.data() + taken, made - taken);
    injected_ += taken;
    drain();
    engine_->poll_control(monotonic_ns());
    return taken;
  }
  // Injects at `pps` for `duration_ns` (paced as BondRig does).
  void run_at_rate(double pps, std::uint64_t duration_ns) {
    const std::uint64_t start = monotonic_ns();
    Pacer pacer(pps, start);
    for (std::uint64_t now = start; now - start < duration_ns; now = monotonic_ns())
      pacer.spent(pump(pacer.due(now)));
  }

  // Runs the control work and drains until every packet injected arrived at the near host or was
  // dropped, by braid (under a reason) or outside it (`lost_outside`: an emulated NIC's CRC
  // errors). True when it got there within 10 s.
  bool settle(const std::function<std::uint64_t()>& lost_outside = {}) {
    const std::uint64_t deadline = monotonic_ns() + 10'000'000'000ull;
    while (monotonic_ns() < deadline) {
      pump(0);
      const std::uint64_t lost = lost_outside ? lost_outside() : 0;
      if (delivered_ + engine_->totals().dropped() + lost == injected_) return true;
    }
    return false;
  }

  std::uint64_t injected() const { return injected_; }
  std::uint64_t delivered() const { return delivered_; }
  // Data frames the far bond put on cable m (counted where they arrive, before a CRC error).
  std::uint64_t crossed(std::size_t m) const { return crossed_[m].load(); }
  std::uint64_t dropped(datapath::DropReason reason) const {
    return engine_->totals().drops[static_cast<std::size_t>(reason)];
  }
  std::uint16_t near_port(std::size_t m) { return near().members()[m].port_id; }
  // The time of the bond's first event after `since_ns` holding `text`; 0: none.
  static std::uint64_t event_after(const bond::Bond& bond, std::uint64_t since_ns,
                                   std::string_view text) {
    for (const bond::BondEvent& event : bond.events()) {
      if (event.time_ns > since_ns && event.text.find(text) != std::string::npos)
        return event.time_ns;
    }
    return 0;
  }

 private:
  static std::uint16_t count_crossing(std::uint16_t, std::uint16_t, rte_mbuf** packets,
                                      std::uint16_t count, std::uint16_t, void* counter) {
    std::uint64_t data = 0;
    for (std::uint16_t i = 0; i < count; ++i)
      data += !drivers::is_slow_protocols(packets[i]) && !drivers::is_lldp(packets[i]);
    static_cast<std::atomic<std::uint64_t>*>(counter)->fetch_add(data, std::memory_order_relaxed);
    return count;
  }

  void drain() {
    near_host_.drain([&](const rte_mbuf*) { ++delivered_; });
  }

  RingPort near_host_;
  RingPort far_host_;
  FlowSet flows_;
  std::vector<std::atomic<std::uint64_t>> crossed_;
  std::vector<const rte_eth_rxtx_callback*> counters_;
  std::unique_ptr<engine::Engine> engine_;
  std::uint32_t next_flow_ = 0;
  std::uint64_t injected_ = 0;
  std::uint64_t delivered_ = 0;
};

}  // namespace braid::test
