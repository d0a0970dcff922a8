#include "lldp/agent.hpp"

#include <algorithm>

namespace braid::lldp {

namespace {

std::uint16_t ttl_for(const AgentConfig& config) {
  // 9.2.5.22 txTTL: min(65535, msgTxInterval x msgTxHold + 1).
  const std::uint64_t ttl = std::uint64_t{config.tx_interval_s} * config.tx_hold + 1;
  return static_cast<std::uint16_t>(std::min<std::uint64_t>(ttl, 65535));
}

// Ours to compare: what a neighbour sends, leaving out the TTL that refreshes it.
bool same_information(const Lldpdu& a, const Lldpdu& b) {
  Lldpdu copy = b;
  copy.ttl_s = a.ttl_s;
  return a == copy;
}

}  // namespace

std::string check_agent_config(const AgentConfig& config) {
  if (config.tx_interval_s < 1 || config.tx_interval_s > 3600)
    return "tx_interval_s must be 1-3600";
  if (config.tx_hold < 1 || config.tx_hold > 100) return "tx_hold must be 1-100";
  if (config.fast_tx_interval_s < 1 || config.fast_tx_interval_s > 3600)
    return "fast_tx_interval_s must be 1-3600";
  if (config.tx_fast_init < 1 || config.tx_fast_init > 8) return "tx_fast_init must be 1-8";
  if (config.tx_credit_max < 1 || config.tx_credit_max > 10) return "tx_credit_max must be 1-10";
  if (config.reinit_delay_s > 10) return "reinit_delay_s must be 0-10";
  if (config.max_neighbours < 1) return "max_neighbours must be at least 1";
  return "";
}

const char* to_string(RxEvent event) {
  switch (event) {
    case RxEvent::kIgnored:
      return "ignored";
    case RxEvent::kDiscarded:
      return "discarded";
    case RxEvent::kNew:
      return "new";
    case RxEvent::kChanged:
      return "changed";
    case RxEvent::kRefreshed:
      return "refreshed";
    case RxEvent::kShutdown:
      return "shutdown";
    case RxEvent::kTableFull:
      return "table_full";
  }
  return "unknown";
}

Agent::Agent(const AgentConfig& config, const Lldpdu& local) : config_(config), local_(local) {
  local_.ttl_s = ttl_for(config_);
}

void Agent::start(std::uint64_t now_ns) {
  if (running()) return;
  start_pending_ = true;
  start_at_ns_ = now_ns;
  // 9.2.5.21 reinitDelay: a re-enabled port waits before it sends again.
  if (stopped_once_)
    start_at_ns_ = std::max(now_ns, stopped_at_ns_ + config_.reinit_delay_s * kNsPerSecond);
}

void Agent::stop(std::uint64_t now_ns) {
  if (!running()) return;
  if (running_) shutdown_pending_ = true;  // nothing to retract if we never sent
  running_ = false;
  start_pending_ = false;
  stopped_once_ = true;
  stopped_at_ns_ = now_ns;
  tx_now_ = false;
  next_tx_ns_ = kNever;
  if (!neighbours_.empty()) changed_ = true;
  counters_.deletes += neighbours_.size();
  neighbours_.clear();
}

bool Agent::set_local(const Lldpdu& local, std::uint64_t now_ns) {
  Lldpdu next = local;
  next.ttl_s = local_.ttl_s;
  if (next == local_) return false;
  local_ = std::move(next);
  if (running_) signal_tx(now_ns);
  return true;
}

void Agent::fast_start(std::uint64_t now_ns) {
  // 9.2.9 TX_FAST_START: txFast = txFastInit, then the timer expires at once.
  ++counters_.fast_starts;
  tx_fast_ = config_.tx_fast_init;
  timer_expires(now_ns);
}

void Agent::timer_expires(std::uint64_t now_ns) {
  // 9.2.9 TX_TIMER_EXPIRES: one fast transmission used up, then SIGNAL_TX.
  if (tx_fast_ > 0) --tx_fast_;
  signal_tx(now_ns);
}

void Agent::signal_tx(std::uint64_t now_ns) {
  // 9.2.9 SIGNAL_TX: txNow, and txTTR restarts with the fast or the normal interval.
  if (!tx_now_) tx_now_since_ns_ = now_ns;
  tx_now_ = true;
  const std::uint32_t interval_s =
      tx_fast_ > 0 ? config_.fast_tx_interval_s : config_.tx_interval_s;
  next_tx_ns_ = now_ns + interval_s * kNsPerSecond;
}

void Agent::refill_credit(std::uint64_t now_ns) {
  // 9.2.9 TX_TICK: txCredit + 1 per second, up to txCreditMax (9.2.7.5 txAddCredit).
  if (now_ns < last_tick_ns_ + kNsPerSecond) return;
  const std::uint64_t ticks = (now_ns - last_tick_ns_) / kNsPerSecond;
  tx_credit_ = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(config_.tx_credit_max, tx_credit_ + ticks));
  last_tick_ns_ += ticks * kNsPerSecond;
}

void Agent::age(std::uint64_t now_ns) {
  // 9.2.7.7.3 rxInfoAge: a neighbour whose TTL ran out is deleted.
  const auto expired = [now_ns](const Neighbour& n) { return n.expires_ns <= now_ns; };
  const auto count = std::count_if(neighbours_.begin(), neighbours_.end(), expired);
  if (count == 0) return;
  std::erase_if(neighbours_, expired);
  counters_.ageouts += static_cast<std::uint64_t>(count);
  counters_.deletes += static_cast<std::uint64_t>(count);
  changed_ = true;
}

std::optional<std::vector<std::uint8_t>> Agent::poll(std::uint64_t now_ns) {
  age(now_ns);
  if (shutdown_pending_) {
    // 9.2.9: a shutdown LLDPDU carries the mandatory TLVs only, TTL 0; it needs no credit.
    shutdown_pending_ = false;
    Lldpdu shutdown;
    shutdown.chassis_id = local_.chassis_id;
    shutdown.port_id = local_.port_id;
    shutdown.ttl_s = 0;
    ++counters_.frames_out;
    ++counters_.shutdowns_out;
    return build_frame(config_.source_mac, shutdown);
  }
  if (start_pending_ && now_ns >= start_at_ns_) {
    // 9.2.8 TX_LLDP_INITIALIZE: full credit; braid also starts fast, so that a switch learns a
    // new member within seconds.
    start_pending_ = false;
    running_ = true;
    tx_credit_ = config_.tx_credit_max;
    last_tick_ns_ = now_ns;
    fast_start(now_ns);
  }
  if (!running_) return std::nullopt;
  refill_credit(now_ns);
  if (now_ns >= next_tx_ns_) timer_expires(now_ns);
  if (!tx_now_) return std::nullopt;
  if (tx_credit_ == 0) {
    if (!credit_wait_counted_) ++counters_.credit_waits;
    credit_wait_counted_ = true;
    return std::nullopt;
  }
  credit_wait_counted_ = false;
  // 9.2.8 TX_INFO_FRAME: one frame, one credit.
  tx_now_ = false;
  --tx_credit_;
  ++counters_.frames_out;
  return build_frame(config_.source_mac, local_);
}

RxEvent Agent::on_frame(ByteSpan frame, std::uint64_t now_ns) {
  if (!running()) {
    ++counters_.frames_ignored;
    return RxEvent::kIgnored;
  }
  age(now_ns);
  ParsedFrame parsed = parse_frame(frame);
  if (parsed.reason != RejectReason::kNone) {
    ++counters_.discarded_total;
    ++counters_.discarded[static_cast<std::size_t>(parsed.reason)];
    return RxEvent::kDiscarded;
  }
  ++counters_.frames_in;
  counters_.tlvs_unrecognised += parsed.unrecognised_tlvs;
  counters_.tlvs_repeated += parsed.repeated_tlvs;
  if (!parsed.end_seen) ++counters_.frames_without_end;
  Lldpdu& info = parsed.lldpdu;
  const auto known = std::find_if(neighbours_.begin(), neighbours_.end(), [&](const Neighbour& n) {
    return n.info.chassis_id == info.chassis_id && n.info.port_id == info.port_id;
  });
  if (info.ttl_s == 0) {
    // 9.2.7.7.1: a TTL of 0 deletes the neighbour's information at once.
    ++counters_.shutdowns_in;
    if (known != neighbours_.end()) {
      neighbours_.erase(known);
      ++counters_.deletes;
      changed_ = true;
    }
    return RxEvent::kShutdown;
  }
  const std::uint64_t expires_ns = now_ns + info.ttl_s * kNsPerSecond;
  if (known != neighbours_.end()) {
    known->last_update_ns = now_ns;
    known->expires_ns = expires_ns;
    known->source_mac = parsed.source_mac;
    if (same_information(known->info, info)) {
      known->info.ttl_s = info.ttl_s;
      return RxEvent::kRefreshed;
    }
    known->aggregation = link_aggregation(info);
    known->info = std::move(info);
    ++known->changes;
    changed_ = true;
    return RxEvent::kChanged;
  }
  if (neighbours_.size() >= config_.max_neighbours) {
    ++counters_.drops;  // 9.2.7.7.4 tooManyNeighbors: the new information is discarded
    return RxEvent::kTableFull;
  }
  Neighbour neighbour;
  neighbour.aggregation = link_aggregation(info);
  neighbour.info = std::move(info);
  neighbour.source_mac = parsed.source_mac;
  neighbour.first_seen_ns = now_ns;
  neighbour.last_update_ns = now_ns;
  neighbour.expires_ns = expires_ns;
  neighbours_.push_back(std::move(neighbour));
  ++counters_.inserts;
  changed_ = true;
  // 9.2.7.7.1 newNeighbor: fast transmission, so that the neighbour learns us quickly too.
  if (running_) fast_start(now_ns);
  return RxEvent::kNew;
}

std::uint64_t Agent::next_deadline_ns() const {
  std::uint64_t deadline = kNever;
  for (const Neighbour& neighbour : neighbours_)
    deadline = std::min(deadline, neighbour.expires_ns);
  if (shutdown_pending_) deadline = std::min(deadline, stopped_at_ns_);
  if (start_pending_) deadline = std::min(deadline, start_at_ns_);
  if (running_) {
    deadline = std::min(deadline, next_tx_ns_);
    if (tx_now_)
      deadline =
          std::min(deadline, tx_credit_ > 0 ? tx_now_since_ns_ : last_tick_ns_ + kNsPerSecond);
  }
  return deadline;
}

bool Agent::take_changed() {
  const bool changed = changed_;
  changed_ = false;
  return changed;
}

}  // namespace braid::lldp
