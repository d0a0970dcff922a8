#include "sched/dpdk/bond_scheduler.hpp"

#include <rte_cycles.h>

#include <algorithm>

#include "common/clock.hpp"
#include "common/plural.hpp"
#include "log/log_types.hpp"

namespace braid::sched {

Settings settings_from_config(const config::SchedulerConfig& config, std::size_t members) {
  Settings settings;
  settings.policy = parse_policy(config.policy).value_or(PolicyKind::kHash);
  settings.weights = config.weights;
  settings.weights.resize(members, 1);
  settings.flowlet_gap_ns = std::uint64_t{config.flowlet_gap_us} * 1000;
  settings.period_ns = std::uint64_t{config.period_ms} * 1'000'000;
  settings.max_moves = config.max_moves;
  settings.max_holds = config.max_holds;
  settings.aimd = {config.aimd.floor_permille,      config.aimd.ceiling_permille,
                   config.aimd.decrease_permille,   config.aimd.increase_permille,
                   config.aimd.hysteresis_permille, config.aimd.smoothing_permille};
  settings.score = {config.congestion.pause_quanta_us, config.congestion.mark_gain};
  return settings;
}

BondScheduler::BondScheduler(bond::Bond& bond, Settings settings,
                             std::unique_ptr<congestion::Source> source)
    : bond_(bond),
      scheduler_(std::move(settings), bond.member_count(), bond.config().buckets),
      source_(std::move(source)),
      activity_(bond.config().buckets),
      counts_(bond.config().buckets),
      inputs_(bond.member_count()) {}

void BondScheduler::start(std::uint64_t now_ns) {
  apply_policy(now_ns);
  next_ns_ = now_ns + scheduler_.settings().period_ns;
}

void BondScheduler::apply_policy(std::uint64_t now_ns) {
  const bool hash = scheduler_.policy() == PolicyKind::kHash;
  // To hash: the bond's own rebuild would give held buckets a member and bring every member to
  // an equal share at once, moving busy buckets while their old members still queue their
  // packets (reordering those flows). So the scheduler first settles there flowlet by flowlet
  // (held moves complete, idle buckets move to equal shares: Scheduler::settling), and poll()
  // hands the table to the bond's static rebuild once it is there.
  hash_pending_ = hash && (scheduler_.moves_in_progress() != 0 || scheduler_.settling());
  if (hash_pending_) return;
  // Workers record bucket activity only under flowlet policies: after a switch from hash the
  // arrays are stale, so every bucket counts as busy until a flowlet gap of fresh records. And
  // what hash sent unrecorded was sent by now at the latest: a bucket whose count has not moved
  // when the next period reads it (often more than a gap later) was last seen now, not when
  // the last flowlet policy saw it. Its packets may still wait in a paused member's queue.
  if (!hash && !bond_.flowlet_managed()) {
    recording_since_ns_ = now_ns;
    for (BucketActivity& bucket : activity_)
      bucket.last_seen_ns = std::max(bucket.last_seen_ns, now_ns);
  }
  bond_.set_flowlet_managed(!hash);
  if (hash) {
    bond_.set_weights(std::vector<std::uint32_t>(bond_.member_count(), 1), now_ns);
  } else {
    bond_.set_weight_targets(scheduler_.weights(), now_ns);
  }
}

void BondScheduler::gather_activity(std::uint64_t now_ns) {
  const std::uint64_t tsc_hz = rte_get_tsc_hz();
  const std::uint32_t now_stamp = bond::activity_stamp(rte_rdtsc());
  const double ns_per_stamp = 1e9 * (1u << bond::kActivityStampShift) / static_cast<double>(tsc_hz);
  const bool warming_up = now_ns < recording_since_ns_ + scheduler_.flowlet_gap_ns();
  for (std::uint32_t b = 0; b < activity_.size(); ++b) {
    std::uint32_t idle = UINT32_MAX;
    for (std::size_t w = 0; w < bond_.activity().size(); ++w) {
      const auto& worker = bond_.activity()[w];
      if (!worker) continue;
      // A stamp is read only when the worker's count moved since the last reading (at most a
      // period ago), so it is fresh: the stamps' wrap (every ~30 min) never makes a long-idle
      // bucket look active.
      if (!counts_.observe(w, b, worker->packets(b))) continue;
      // A worker may stamp a bucket after `now_stamp` was read: that is "just now", not a
      // wrapped-around age of half an hour.
      const auto age = static_cast<std::int32_t>(now_stamp - worker->stamp(b));
      idle = std::min(idle, age > 0 ? static_cast<std::uint32_t>(age) : 0u);
    }
    activity_[b].packets = counts_.total(b);
    if (warming_up) {
      activity_[b].last_seen_ns = now_ns;
    } else if (idle != UINT32_MAX) {
      const auto idle_ns = static_cast<std::uint64_t>(idle * ns_per_stamp);
      activity_[b].last_seen_ns = idle_ns < now_ns ? now_ns - idle_ns : 1;
    }
  }
}

void BondScheduler::gather_inputs(std::uint64_t now_ns) {
  const bond::BondTable* table = bond_.table();
  std::uint64_t reading_ns = 0;
  const std::vector<bond::MemberStatus> members = bond_.members();
  for (std::size_t m = 0; m < inputs_.size(); ++m) {
    inputs_[m].distributing = table != nullptr && table->distributing[m];
    inputs_[m].health_permille = m < members.size() ? members[m].health_weight_permille : 1000;
    const MemberQueue queue =
        queue_depth_ ? queue_depth_(m) : MemberQueue{std::nullopt, kCountedNow};
    inputs_[m].queue_depth = queue.packets;
    inputs_[m].counted_ns = queue.counted_ns;
    inputs_[m].acked_generation = queue.acked_generation;
    if (source_) {
      const std::uint64_t before = monotonic_ns();
      inputs_[m].counters = source_->read(m, now_ns);
      reading_ns += monotonic_ns() - before;
    }
  }
  note_counters_read(reading_ns);
}

// The control thread also runs LACP and failover: a source that takes a tenth of the period to
// read is worth one line, once, with what to do about it.
void BondScheduler::note_counters_read(std::uint64_t reading_ns) {
  counters_read_ns_ = reading_ns;
  counters_read_max_ns_ = std::max(counters_read_max_ns_, reading_ns);
  const std::uint64_t period_ns = scheduler_.settings().period_ns;
  if (slow_read_logged_ || reading_ns * 10 <= period_ns) return;
  slow_read_logged_ = true;
  BRAID_LOG_TO(kBond, WARNING,
               "bond %s: reading the %s congestion counters of %s took %.2f ms, more "
               "than a tenth of the %.0f ms period; the control thread spends it every period "
               "(a longer scheduler.period_ms reads them less often)\n",
               bond_.name().c_str(), source_ ? std::string(source_->name()).c_str() : "?",
               counted(inputs_.size(), "member").c_str(), static_cast<double>(reading_ns) / 1e6,
               static_cast<double>(period_ns) / 1e6);
}

std::uint64_t BondScheduler::next_wakeup_ns() const {
  const std::uint64_t release_ns = scheduler_.next_release_ns();
  return release_ns != 0 ? std::min(next_ns_, release_ns) : next_ns_;
}

std::uint64_t BondScheduler::poll(std::uint64_t now_ns) {
  // Inputs before activity: a packet a worker distributed before the time the inputs count up
  // to is then in the activity read after (held_moves.hpp relies on it).
  if (now_ns < next_ns_) {
    // Between periods only moves in progress have work.
    const std::uint64_t release_ns = scheduler_.next_release_ns();
    if (release_ns != 0 && now_ns >= release_ns) {
      gather_inputs(now_ns);
      gather_activity(now_ns);
      if (auto table = scheduler_.release(now_ns, inputs_, activity_, bond_.assignment())) {
        if (const auto generation = bond_.publish_assignment(*table, now_ns, "moves completed"))
          scheduler_.note_published(*generation);
      }
    }
    finish_pending_hash(now_ns);
    return next_wakeup_ns();
  }
  if (lag_ != nullptr) lag_->record(DeadlineKind::kSchedulerPeriod, next_ns_, now_ns);
  next_ns_ = now_ns + scheduler_.settings().period_ns;
  gather_inputs(now_ns);
  gather_activity(now_ns);
  const StepResult result = scheduler_.step(now_ns, inputs_, activity_, bond_.assignment());
  if (result.weights) bond_.set_weight_targets(*result.weights, now_ns);
  if (result.buckets) {
    if (const auto generation = bond_.publish_assignment(*result.buckets, now_ns, "flowlet moves"))
      scheduler_.note_published(*generation);
  }
  const Snapshot snap = scheduler_.snapshot();
  // Log the changes this period added (the history is bounded; count from the total).
  const std::uint64_t fresh =
      std::min<std::uint64_t>(snap.weight_changes - history_logged_, snap.history.size());
  for (std::size_t i = snap.history.size() - fresh; i < snap.history.size(); ++i) {
    const WeightChange& change = snap.history[i];
    const std::vector<std::string>& names = bond_.config().members;
    const std::string member =
        change.member < names.size() ? names[change.member] : "#" + std::to_string(change.member);
    BRAID_LOG_TO(kBond, INFO, "bond %s: member %s weight %u -> %u (%s)\n", bond_.name().c_str(),
                 member.c_str(), change.from, change.to, change.cause.c_str());
  }
  history_logged_ = snap.weight_changes;
  finish_pending_hash(now_ns);
  return next_wakeup_ns();
}

void BondScheduler::finish_pending_hash(std::uint64_t now_ns) {
  if (hash_pending_ && scheduler_.moves_in_progress() == 0 && !scheduler_.settling())
    apply_policy(now_ns);
}

bool BondScheduler::set_policy(const std::string& name, std::uint64_t now_ns, std::string& error) {
  const std::optional<PolicyKind> kind = parse_policy(name);
  if (!kind) {
    error = "unknown policy \"" + name + "\" (known: hash, wrr, lqf, adaptive)";
    return false;
  }
  scheduler_.set_policy(*kind, now_ns);
  apply_policy(now_ns);
  return true;
}

bool BondScheduler::set_weight(std::size_t member, std::uint32_t weight, std::uint64_t now_ns,
                               std::string& error) {
  if (member >= bond_.member_count() || weight == 0 || weight > 1000) {
    error = "member must be 0.." + std::to_string(bond_.member_count() - 1) + " and weight 1..1000";
    return false;
  }
  scheduler_.set_weight(member, weight, now_ns);
  if (scheduler_.policy() != PolicyKind::kHash)
    bond_.set_weight_targets(scheduler_.weights(), now_ns);
  return true;
}

}  // namespace braid::sched
