// The health of a bond's members (lib/health, doc/health.md): one MemberHealth per member, fed
// what the bond knows (carrier, BFD, the PFC storm watchdog's verdict) and, once a second, the
// member's counters (the ethdev's, the NIC family's, and the LACPDUs and BFD packets its
// partner owed). Each state change, flap and verdict is a line in the bond's events.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bond/dpdk/bond_events.hpp"
#include "bond/dpdk/member_health_sources.hpp"
#include "common/slow_reads.hpp"
#include "common/waker.hpp"
#include "config/config.hpp"
#include "health/ethdev_counters.hpp"
#include "health/member_health.hpp"
#include "health/periodic_expectation.hpp"
#include "port/ethdev_port.hpp"

namespace braid::bond {

// What the bond knows of member m besides its counters.
struct HealthFacts {
  bool carrier = false;
  bool pfc_storm = false;  // a storm on every class's priority under action move
};

class BondHealth {
 public:
  static constexpr std::uint64_t kSampleIntervalNs = 1'000'000'000;  // the counters, 1 s

  BondHealth(const config::BondConfig& config, const std::vector<drivers::EthdevPort*>& ports,
             BondEventLog& events);
  // The sampling tick's counter reads (xstats: on mlx5 an ethtool ioctl under the kernel's rtnl
  // lock; ethtool statistics; sysfs RDMA counters) run on `reads` from now on, which wakes
  // `loop` with the result; the tick's health update follows when it comes.
  void read_off_loop(SlowReads* reads, const Waker* loop) {
    reads_ = reads;
    loop_ = loop;
  }

  // Member m's health with the facts now (and a counter sample, on a sampling tick); true when
  // the weight it leaves the member changed (the caller rebuilds).
  bool update(std::size_t m, const HealthFacts& facts, std::uint64_t now_ns,
              std::optional<health::CounterSnapshot> counters = std::nullopt);
  // The sampling tick (every kSampleIntervalNs: every member with its counters, which `extra`
  // completes with the signals only the bond can count) or a member's deadline (delays and
  // suppressions ending). True when some member's weight changed.
  using FactsOf = std::function<HealthFacts(std::size_t m)>;
  using ExtraSignals = std::function<void(std::size_t m, health::CounterSnapshot& counters)>;
  bool run(std::uint64_t now_ns, const FactsOf& facts, const ExtraSignals& extra);
  // Every member at once, without counters (the first update at start).
  bool update_all(std::uint64_t now_ns, const FactsOf& facts);
  std::uint64_t next_deadline_ns() const;
  void restart_sampling(std::uint64_t now_ns) { next_sample_ns_ = now_ns; }

  // BFD's verdict on member m (kNotConfigured until BFD runs); true when it changed.
  bool set_bfd(std::size_t m, health::BfdStatus status);
  health::BfdStatus bfd(std::size_t m) const { return members_[m].bfd; }

  const health::MemberHealth& member(std::size_t m) const { return *members_[m].health; }
  std::uint32_t weight_permille(std::size_t m) const {
    return members_[m].health->weight_permille();
  }
  health::HealthView view(std::size_t m, std::uint64_t now_ns) const {
    return members_.at(m).health->view(now_ns);
  }
  // The LACPDUs (lacpdu_missed) and BFD packets (bfd_missed) member m's partner owed.
  health::PeriodicExpectation& lacpdus(std::size_t m) { return members_[m].lacpdus; }
  health::PeriodicExpectation& bfd_packets(std::size_t m) { return members_[m].bfd_packets; }

 private:
  struct Member {
    drivers::EthdevPort* port = nullptr;
    std::unique_ptr<health::MemberHealth> health;
    std::unique_ptr<MemberHealthSources> sources;  // mlx5, RoCE: over the ethdev's
    health::PeriodicExpectation lacpdus;
    health::PeriodicExpectation bfd_packets;
    health::BfdStatus bfd = health::BfdStatus::kNotConfigured;
  };

  health::CounterSnapshot read_counters(std::size_t m) const;
  std::vector<health::CounterSnapshot> read_all_counters() const;
  bool update_sampled(std::uint64_t now_ns, const FactsOf& facts, const ExtraSignals& extra,
                      std::vector<health::CounterSnapshot> counters);

  std::string bond_name_;
  std::vector<Member> members_;
  health::XstatNames xstats_;
  BondEventLog* events_;
  std::uint64_t next_sample_ns_ = 0;
  SlowReads* reads_ = nullptr;
  const Waker* loop_ = nullptr;
  PendingRead<std::vector<health::CounterSnapshot>> pending_;
};

}  // namespace braid::bond
