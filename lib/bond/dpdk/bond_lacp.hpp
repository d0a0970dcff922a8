// A bond's LACP (mode lacp): the 802.1AX machines of its members (lacp::LacpSystem) driven by
// the protocol loop's deadlines, the evidence fallback needs (frames from the far end), the
// goodbye LACPDUs a member sends as it leaves service for good, and the LACPDUs its partner
// owed (the health signal lacpdu_missed). LACPDUs and marker responses leave on the members'
// control queues through `send`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bond/dpdk/bond_counters.hpp"
#include "bond/dpdk/bond_events.hpp"
#include "bond/dpdk/late_deadlines.hpp"
#include "bond/dpdk/member_links.hpp"
#include "config/config.hpp"
#include "health/periodic_expectation.hpp"
#include "lacp/lacp_system.hpp"
#include "port/ethdev_port.hpp"

namespace braid::bond {

class BondLacp {
 public:
  using Send = std::function<bool(std::size_t m, ByteSpan frame)>;

  // `port_macs`: each member's own address (its LACPDUs' source); `links`: the members' links,
  // read for goodbyes (a link that went down needs none).
  BondLacp(const config::BondConfig& config, const lacp::MacAddress& system_mac,
           const std::vector<lacp::MacAddress>& port_macs, std::vector<drivers::EthdevPort*> ports,
           const MemberLinks& links, Send send, BondEventLog& events, LateDeadlines& late,
           BondCounters& counters, std::uint64_t now_ns);

  lacp::LacpSystem& system() { return *system_; }
  const lacp::LacpSystem& system() const { return *system_; }

  // Fallback's evidence (once a second, with fallback on), the machines' timers (their
  // lateness noted), pending goodbyes, fallback changes logged.
  void run(std::uint64_t now_ns);
  // Whether some member's collecting or distributing changed since acknowledge() (the bond then
  // rebuilds its tables).
  bool changed() const { return system_->generation() != seen_generation_; }
  void acknowledge() { seen_generation_ = system_->generation(); }
  std::uint64_t next_deadline_ns(std::uint64_t now_ns) const;

  // Member m's port is enabled (link up and admin up) or not.
  void set_enabled(std::size_t m, bool enabled, std::uint64_t now_ns);
  bool collecting(std::size_t m) const { return system_->collecting(m); }
  bool distributing(std::size_t m) const { return system_->distributing(m); }

  // Member m leaves service while its link stays up: its goodbye LACPDU (LacpSystem::
  // goodbye_frame) goes out now, or at the next poll while the port refuses it.
  void say_goodbye(std::size_t m, std::uint64_t now_ns);
  void cancel_goodbye(std::size_t m) { goodbyes_.at(m).reset(); }
  // braid stops: goodbyes on every member `leaving(m)` says, retried for up to patience_ns.
  void leave(std::uint64_t now_ns, std::uint64_t patience_ns,
             const std::function<bool(std::size_t m)>& leaving);

  void set_rate(bool fast, std::uint64_t now_ns);
  // The LACPDUs member m's partner owed and sent up to now (periodic_expectation.hpp).
  health::CounterSample lacpdu_sample(std::size_t m, health::PeriodicExpectation& expectation,
                                      std::uint64_t now_ns) const;

 private:
  void observe_neighbours(std::uint64_t now_ns);
  void log_fallback_changes(std::uint64_t now_ns);
  void send_pending_goodbyes(std::uint64_t now_ns);
  bool goodbyes_pending() const;

  const config::BondConfig* config_;
  std::vector<drivers::EthdevPort*> ports_;
  const MemberLinks* links_;
  Send send_;
  BondEventLog* events_;
  LateDeadlines* late_;
  BondCounters* counters_;
  std::unique_ptr<lacp::LacpSystem> system_;
  std::uint64_t seen_generation_ = 0;
  std::vector<std::optional<lacp::SlowFrame>> goodbyes_;  // refused by the port: sent again
  std::vector<std::uint64_t> rx_packets_seen_;            // each port's ipackets at the last check
  std::vector<lacp::FallbackState> fallback_;             // as last logged
  std::uint64_t next_neighbour_check_ns_ = 0;
};

}  // namespace braid::bond
