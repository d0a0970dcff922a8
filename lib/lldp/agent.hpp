// One LLDP agent on one bond member (IEEE 802.1AB-2016 9.2): the transmit timer (msgTxInterval,
// fast transmission after a new neighbour, the txCredit limit, a shutdown LLDPDU on stop) and
// the receive side's neighbour table (keyed by chassis id and port id, aged by each neighbour's
// TTL, cleared at once by a TTL of 0). Pure: frames in and out as bytes, time as the injected
// monotonic `now_ns`.
//
// Driving it: start(); hand every frame received on the member's control queue to on_frame();
// call poll(now) at next_deadline_ns() (or later), and again until it returns nothing: each frame
// it returns is to be sent now.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lldp/lldpdu.hpp"

namespace braid::lldp {

inline constexpr std::uint64_t kNsPerSecond = 1'000'000'000;

// 9.2.5: the protocol's timers and limits, with the standard's defaults.
struct AgentConfig {
  MacAddress source_mac{};               // the member's MAC: the frames' source
  std::uint32_t tx_interval_s = 30;      // msgTxInterval (1-3600)
  std::uint32_t tx_hold = 4;             // msgTxHold: TTL = tx_interval_s x tx_hold + 1 (1-100)
  std::uint32_t fast_tx_interval_s = 1;  // msgFastTx (1-3600)
  std::uint32_t tx_fast_init = 4;        // txFastInit: frames sent fast after a new neighbour (1-8)
  std::uint32_t tx_credit_max = 5;   // txCreditMax: burst limit, one credit back a second (1-10)
  std::uint32_t reinit_delay_s = 2;  // reinitDelay: a stopped agent restarts this much later
  std::size_t max_neighbours = 4;    // per member; more is tooManyNeighbors (9.2.7.7.4)
};

// Empty when `config` can run; otherwise what is wrong ("tx_interval_s must be 1-3600", ...).
std::string check_agent_config(const AgentConfig& config);

struct Neighbour {
  Lldpdu info{};
  MacAddress source_mac{};
  std::optional<LinkAggregation> aggregation{};  // link_aggregation(info)
  std::uint64_t first_seen_ns = 0;
  std::uint64_t last_update_ns = 0;  // the last LLDPDU from it
  std::uint64_t expires_ns = 0;      // rxInfoAge: last_update_ns + its TTL
  std::uint64_t changes = 0;         // LLDPDUs whose information differed from the one before
};

// What one received frame did.
enum class RxEvent : std::uint8_t {
  kIgnored,    // the agent is stopped
  kDiscarded,  // refused by the decoder (counted by reason)
  kNew,        // a neighbour not in the table: inserted, fast transmission starts
  kChanged,    // a known neighbour with different information
  kRefreshed,  // a known neighbour, the same information: its TTL restarts
  kShutdown,   // TTL 0: the neighbour is removed (if it was known)
  kTableFull,  // a new neighbour while max_neighbours are known: dropped (tooManyNeighbors)
};
const char* to_string(RxEvent event);

// 9.2.6 statistics and the remote table's counters (lldpStatsRemTables*).
struct AgentCounters {
  std::uint64_t frames_out = 0;  // shutdown frames included
  std::uint64_t shutdowns_out = 0;
  std::uint64_t fast_starts = 0;     // txFast restarted by a new neighbour or start()
  std::uint64_t credit_waits = 0;    // a frame was due with no credit left
  std::uint64_t frames_in = 0;       // accepted LLDPDUs
  std::uint64_t frames_ignored = 0;  // arrived while stopped
  std::uint64_t frames_without_end = 0;
  std::uint64_t shutdowns_in = 0;
  std::uint64_t tlvs_unrecognised = 0;
  std::uint64_t tlvs_repeated = 0;
  std::uint64_t discarded_total = 0;
  std::array<std::uint64_t, kRejectReasonCount> discarded{};  // indexed by RejectReason
  std::uint64_t inserts = 0;
  std::uint64_t deletes = 0;  // ageouts and shutdowns included
  std::uint64_t ageouts = 0;
  std::uint64_t drops = 0;  // tooManyNeighbors

  std::uint64_t discarded_for(RejectReason reason) const {
    return discarded[static_cast<std::size_t>(reason)];
  }
};

class Agent {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  // `config` must pass check_agent_config; `local` what we announce (its ttl_s is ours to set).
  // The agent starts stopped.
  Agent(const AgentConfig& config, const Lldpdu& local);

  // Starts transmission and reception: the first frame goes at once (or when reinitDelay after
  // the last stop() has passed), then txFastInit frames a fast interval apart.
  void start(std::uint64_t now_ns);
  // Sends a shutdown LLDPDU (TTL 0) at the next poll() and forgets every neighbour (their
  // information is stale once the member is down).
  void stop(std::uint64_t now_ns);
  // What we announce changed (somethingChangedLocal): one frame at once, credit permitting.
  // Returns whether it differed.
  bool set_local(const Lldpdu& local, std::uint64_t now_ns);

  // Ages the neighbour table; returns the frame to send now, if any.
  std::optional<std::vector<std::uint8_t>> poll(std::uint64_t now_ns);
  RxEvent on_frame(ByteSpan frame, std::uint64_t now_ns);
  // When poll() next has something to do (kNever: nothing, until a call changes that).
  std::uint64_t next_deadline_ns() const;

  // The table as of the last poll() or on_frame().
  const std::vector<Neighbour>& neighbours() const { return neighbours_; }
  // Whether the table changed (a neighbour came, changed or went) since the last call.
  bool take_changed();
  bool running() const { return running_ || start_pending_; }
  std::uint16_t ttl_s() const { return local_.ttl_s; }
  const Lldpdu& local() const { return local_; }
  const AgentCounters& counters() const { return counters_; }

 private:
  void fast_start(std::uint64_t now_ns);
  void timer_expires(std::uint64_t now_ns);
  void signal_tx(std::uint64_t now_ns);
  void refill_credit(std::uint64_t now_ns);
  void age(std::uint64_t now_ns);

  AgentConfig config_;
  Lldpdu local_;
  AgentCounters counters_;
  std::vector<Neighbour> neighbours_;
  bool changed_ = false;

  bool running_ = false;
  bool start_pending_ = false;
  bool shutdown_pending_ = false;
  std::uint64_t start_at_ns_ = 0;
  std::uint64_t stopped_at_ns_ = 0;
  bool stopped_once_ = false;
  // 9.2.5 transmit variables.
  bool tx_now_ = false;
  std::uint64_t tx_now_since_ns_ = 0;
  bool credit_wait_counted_ = false;
  std::uint32_t tx_fast_ = 0;
  std::uint32_t tx_credit_ = 0;
  std::uint64_t last_tick_ns_ = 0;     // txTick: one credit back per second since then
  std::uint64_t next_tx_ns_ = kNever;  // txTTR
};

}  // namespace braid::lldp
