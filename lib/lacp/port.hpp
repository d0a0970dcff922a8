// Everything one Aggregation Port carries: admin settings, the operational variables of 6.4.7
// and 6.4.8, the timers of 6.4.10, each machine's current state and the counters.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "lacp/config.hpp"
#include "lacp/counters.hpp"
#include "lacp/event_log.hpp"
#include "lacp/resume.hpp"
#include "lacp/timer.hpp"
#include "lacp/types.hpp"
#include "lacp/withdrawal.hpp"

namespace braid::lacp {

enum class RxState : std::uint8_t {
  kInitialize,
  kPortDisabled,
  kExpired,
  kLacpDisabled,
  kDefaulted,
  kCurrent
};
enum class PeriodicState : std::uint8_t { kNoPeriodic, kFastPeriodic, kSlowPeriodic, kPeriodicTx };
enum class MuxState : std::uint8_t {
  kDetached,
  kWaiting,
  kAttached,
  kCollecting,             // independent control only
  kDistributing,           // independent control only
  kCollectingDistributing  // coupled control only
};
enum class ChurnState : std::uint8_t { kNoChurn, kChurnMonitor, kChurn };
// Whether a port may fall back to carrying traffic without a LACP partner (config.hpp).
enum class FallbackState : std::uint8_t {
  kOff,              // not configured
  kBlockedByLacpdu,  // a LACPDU (valid, rejected or looped) arrived within kLongTimeoutTime
  kNoNeighbour,      // nothing arrived from the far end within kFallbackNeighbourWindow
  kArmed,            // allowed; the port is not (yet) DEFAULTED
  kEngaged,          // DEFAULTED and carrying traffic as an Individual link
};

const char* to_string(RxState state);
const char* to_string(PeriodicState state);
const char* to_string(MuxState state);
const char* to_string(Selected selected);
// NO_ACTOR_CHURN / ACTOR_CHURN_MONITOR / ACTOR_CHURN, or the PARTNER_ forms.
const char* to_string(ChurnState state, bool partner);
const char* to_string(FallbackState state);

inline constexpr int kNoAggregator = -1;

struct Port {
  Port(const PortConfig& port_config, const SystemConfig& system_config);

  PortConfig config;

  // Inputs from the link (6.4.7 port_enabled; LACP_Enabled is TRUE on full-duplex links, 6.4.8).
  bool port_enabled = false;
  bool lacp_enabled = false;
  std::uint32_t speed_mbps = 0;
  bool full_duplex = false;

  // 6.4.7 operational variables. `actor` holds Actor_Port_Number/Priority, Actor_System(_Priority),
  // Actor_Oper_Port_Key and Actor_Oper_Port_State; `partner` the Partner_Oper_* set.
  PortInfo actor;
  PortInfo partner;
  PortInfo partner_admin;
  bool ntt = false;
  bool port_moved = false;
  bool actor_churn = false;
  bool partner_churn = false;
  Selected selected = Selected::kUnselected;
  int aggregator = kNoAggregator;  // the aggregator selected (6.4.14), index into the system's
  bool just_selected = false;      // selection logic bookkeeping, for the event log
  bool attached = false;           // Attach_Mux_To_Aggregator done
  bool collecting = false;         // Enable_Collecting done: the bond may accept frames
  bool distributing = false;       // Enable_Distributing done: the bond may send frames
  // The bond's decision to take the port out of its partner's distribution while LACP runs on
  // (withdrawal.hpp); it survives link changes.
  Withdrawal withdrawal;

  // LACP-preserving restart (resume.hpp): the point armed for the port's next link up, what came
  // of it, and when it was applied.
  std::optional<ResumePoint> resume;
  std::uint64_t resume_armed_ns = 0;
  ResumeOutcome resume_outcome = ResumeOutcome::kNone;
  std::string resume_refusal;
  std::uint64_t resumed_ns = 0;

  // 6.4.10 timers.
  Timer current_while_timer;
  Timer periodic_timer;
  Timer wait_while_timer;
  Timer actor_churn_timer;
  Timer partner_churn_timer;

  RxState rx_state = RxState::kInitialize;
  PeriodicState periodic_state = PeriodicState::kNoPeriodic;
  MuxState mux_state = MuxState::kDetached;
  ChurnState actor_churn_state = ChurnState::kChurnMonitor;
  ChurnState partner_churn_state = ChurnState::kChurnMonitor;

  // Transmit machine: send times of the last kMaxTxPerFastPeriodic LACPDUs (6.4.16).
  std::array<std::uint64_t, kMaxTxPerFastPeriodic> tx_times_ns{};
  std::uint64_t tx_count = 0;
  bool tx_held = false;           // NTT held back by the limit; counted once per hold
  std::uint64_t tx_retry_ns = 0;  // a refused LACPDU is built again from this time

  // Fallback evidence: when a LACPDU of any kind (valid, rejected or our own looped back) and
  // when any frame at all last arrived (0: never).
  std::uint64_t lacpdu_heard_ns = 0;
  std::uint64_t neighbour_seen_ns = 0;
  FallbackState fallback = FallbackState::kOff;
  // Marker Responder rate limit window.
  std::uint64_t marker_window_start_ns = 0;
  unsigned marker_responses_in_window = 0;

  PortCounters counters;

  // Ready_N (6.4.8): waiting to attach and the wait_while_timer has run out; ports already past
  // WAITING count as ready so that a new member does not hold back ones already attached.
  bool ready_n(std::uint64_t now_ns) const;
  // The operational key follows an explicit admin key or the link speed.
  std::uint16_t oper_key() const;
  // Copies admin settings (activity, timeout, aggregation, key, priorities) into `actor`.
  // Returns true if anything the partner sees changed.
  bool refresh_actor_admin();
  bool partnered() const { return !has_bit(actor.state, state_bit::kDefaulted); }
  // Fallback (config.hpp): configured, no LACPDU of any kind within kLongTimeoutTime, and frames
  // from the far end within kFallbackNeighbourWindow. fallback_block() says which holds it back
  // (kArmed when none does).
  bool fallback_allowed(std::uint64_t now_ns) const;
  FallbackState fallback_block(std::uint64_t now_ns) const;
  // Partner_Admin_Port_State with (true) or without the in-service bits fallback assumes.
  void set_fallback_partner(bool in_service);
};

// Passed to every machine step: the clock and where transitions are logged.
struct MachineContext {
  std::uint64_t now_ns = 0;
  EventLog& log;

  void transition(const Port& port, Machine machine, const char* from, const char* to) const {
    log.record(Event{now_ns, port.config.port_number, machine, from, to});
  }
};

}  // namespace braid::lacp
