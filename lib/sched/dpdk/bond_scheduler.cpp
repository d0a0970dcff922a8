#include "sched/dpdk/bond_scheduler.hpp"

#include <rte_cycles.h>

#include <algorithm>

#include "classify/roce_reach.hpp"
#include "common/clock.hpp"
#include "common/plural.hpp"
#include "config/config_validate.hpp"
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

BondScheduler::Lane::Lane(Settings settings, std::size_t members, std::uint32_t buckets, bool own,
                          std::uint8_t pfc_priority)
    : scheduler(std::move(settings), members, buckets),
      activity(buckets),
      counts(buckets),
      inputs(members),
      own_policy(own),
      priority(pfc_priority) {}

BondScheduler::BondScheduler(bond::Bond& bond, Settings settings,
                             std::unique_ptr<congestion::Source> source)
    : bond_(bond),
      source_(std::move(source)),
      inputs_(bond.member_count()),
      bond_priority_(
          static_cast<std::uint8_t>(bond.config().scheduler.congestion.priority % kPfcPriorities)),
      policy_(settings.policy),
      period_ns_(settings.period_ns) {
  const classify::ClassifierSpec& classes = bond.config().classes;
  lanes_.reserve(bond.class_count());
  for (std::size_t c = 0; c < bond.class_count(); ++c) {
    Settings own = settings;
    const bool named = c < classes.classes.size() && !classes.classes[c].policy.empty();
    if (named) own.policy = parse_policy(classes.classes[c].policy).value_or(settings.policy);
    lanes_.emplace_back(std::move(own), bond.member_count(), bond.config().buckets, named,
                        bond.class_priority(c));
  }
  if (ClassPolicing::wanted(bond)) policing_ = std::make_unique<ClassPolicing>(bond);
  const config::SchedulerConfig& scheduler = bond.config().scheduler;
  if (scheduler.pfc_watchdog.enabled) {
    watchdogs_.assign(bond.member_count(),
                      health::PfcStormWatchdog(scheduler.pfc_watchdog.settings));
    handed_.assign(bond.member_count(), {});
  }
}

void BondScheduler::start(std::uint64_t now_ns) {
  for (std::size_t c = 0; c < lanes_.size(); ++c)
    apply_policy(c, now_ns);
  // The rate caps hold from the first packet: an equal part for each worker until a period
  // measures what each brings.
  if (policing_) policing_->period(now_ns, inputs_);
  next_ns_ = now_ns + period_ns_;
}

void BondScheduler::apply_policy(std::size_t c, std::uint64_t now_ns) {
  Lane& lane = lanes_[c];
  const PolicyKind kind = lane.scheduler.policy();
  const bool hash = kind == PolicyKind::kHash;
  const bool flowlets = moves_flowlets(kind);
  // To hash: the bond's own rebuild would give held buckets a member and bring every member to
  // an equal share at once, moving busy buckets while their old members still queue their
  // packets (reordering those flows). So the scheduler first settles there flowlet by flowlet
  // (held moves complete, idle buckets move to equal shares: Scheduler::settling), and poll()
  // hands the table to the bond's static rebuild once it is there.
  lane.hash_pending =
      hash && (lane.scheduler.moves_in_progress() != 0 || lane.scheduler.settling());
  if (lane.hash_pending) return;
  // Workers record bucket activity only under flowlet policies: after a switch from hash the
  // arrays are stale, so every bucket counts as busy until a flowlet gap of fresh records. And
  // what hash sent unrecorded was sent by now at the latest: a bucket whose count has not moved
  // when the next period reads it (often more than a gap later) was last seen now, not when
  // the last flowlet policy saw it. Its packets may still wait in a paused member's queue.
  if (flowlets && !bond_.flowlet_managed(c)) {
    lane.recording_since_ns = now_ns;
    for (BucketActivity& bucket : lane.activity)
      bucket.last_seen_ns = std::max(bucket.last_seen_ns, now_ns);
  }
  bond_.set_flowlet_managed(c, flowlets);
  // Spray reorders by design: its table takes the weights at once (what held buckets had
  // waiting goes with the new table).
  bond_.set_spray(c, kind == PolicyKind::kSpray, now_ns);
  if (hash) {
    bond_.set_weights(c, std::vector<std::uint32_t>(bond_.member_count(), 1), now_ns);
  } else if (!flowlets) {
    bond_.set_weights(c, lane.scheduler.weights(), now_ns);
  } else {
    bond_.set_weight_targets(c, lane.scheduler.weights(), now_ns);
  }
}

// Class c's buckets are slots c x buckets .. of the workers' arrays (BondTable::slot).
void BondScheduler::gather_activity(std::size_t c, std::uint64_t now_ns) {
  Lane& lane = lanes_[c];
  const std::uint64_t tsc_hz = rte_get_tsc_hz();
  const std::uint32_t now_stamp = bond::activity_stamp(rte_rdtsc());
  const double ns_per_stamp = 1e9 * (1u << bond::kActivityStampShift) / static_cast<double>(tsc_hz);
  const bool warming_up = now_ns < lane.recording_since_ns + lane.scheduler.flowlet_gap_ns();
  const auto buckets = static_cast<std::uint32_t>(lane.activity.size());
  const std::uint32_t offset = static_cast<std::uint32_t>(c) * buckets;
  for (std::uint32_t b = 0; b < buckets; ++b) {
    std::uint32_t idle = UINT32_MAX;
    for (std::size_t w = 0; w < bond_.activity().size(); ++w) {
      const auto& worker = bond_.activity()[w];
      if (!worker) continue;
      // A stamp is read only when the worker's count moved since the last reading (at most a
      // period ago), so it is fresh: the stamps' wrap (every ~30 min) never makes a long-idle
      // bucket look active.
      if (!lane.counts.observe(w, b, worker->packets(offset + b))) continue;
      // A worker may stamp a bucket after `now_stamp` was read: that is "just now", not a
      // wrapped-around age of half an hour.
      const auto age = static_cast<std::int32_t>(now_stamp - worker->stamp(offset + b));
      idle = std::min(idle, age > 0 ? static_cast<std::uint32_t>(age) : 0u);
    }
    lane.activity[b].packets = lane.counts.total(b);
    if (warming_up) {
      lane.activity[b].last_seen_ns = now_ns;
    } else if (idle != UINT32_MAX) {
      const auto idle_ns = static_cast<std::uint64_t>(idle * ns_per_stamp);
      lane.activity[b].last_seen_ns = idle_ns < now_ns ? now_ns - idle_ns : 1;
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
  if (!watchdogs_.empty() && source_) watch_storms(now_ns);
  // Each class plans over the members its table may name, with the pauses of its own PFC
  // priority (ECN, CNP, discards and packets sent are the member's).
  for (std::size_t c = 0; c < lanes_.size(); ++c) {
    Lane& lane = lanes_[c];
    lane.inputs = inputs_;
    for (std::size_t m = 0; m < inputs_.size(); ++m) {
      lane.inputs[m].distributing = inputs_[m].distributing && bond_.class_distributes(c, m);
      lane.inputs[m].counters = on_priority(inputs_[m].counters, lane.priority, bond_priority_);
    }
  }
}

void BondScheduler::watch_storms(std::uint64_t now_ns) {
  using Field = CongestionCounters::Field;
  const std::uint8_t in_use = bond_.pfc_priorities();
  // With classes, each priority is judged by its own traffic: what its classes handed the member
  // (the workers count it per class and member) and what the NIC sent on it. Without, the bond's
  // one priority by the port's packets sent and queue depth, whatever priority its frames carry.
  const bool by_priority = bond_.classifier() != nullptr;
  const bond::ClassMemberCounts offered =
      by_priority ? bond_.class_offered() : bond::ClassMemberCounts{};
  for (std::size_t m = 0; m < watchdogs_.size(); ++m) {
    // Without packets sent, ordinary pauses would look like a queue that never drains.
    if (!inputs_[m].counters.has(Field::kTxPackets)) continue;
    for (std::uint8_t p = 0; p < kPfcPriorities; ++p) {
      if ((in_use >> p & 1u) == 0) continue;
      // The priority's own pauses; its own packets sent where the NIC counts them, else the
      // port's (then a storm shows only once the whole queue stops).
      const CongestionCounters c = on_priority(inputs_[m].counters, p, bond_priority_);
      if (!(c.has(Field::kPauseFrames) || c.has(Field::kPauseDurationUs))) continue;
      health::PfcQueueSample sample;
      sample.pause_frames = c.has(Field::kPauseFrames) ? c.pause_frames : 0;
      if (c.has(Field::kPauseDurationUs)) sample.pause_duration_us = c.pause_duration_us;
      sample.tx_packets = by_priority ? c.tx_packets_on(p) : c.tx_packets;
      sample.depth_descriptors = inputs_[m].queue_depth;
      if (by_priority && !has_waiting(m, p, offered)) sample.depth_descriptors = 0;
      if (const std::optional<health::PfcStormEvent> event =
              watchdogs_[m].sample(now_ns, p, sample))
        log_storm(m, *event);
    }
    bond_.set_pfc_storm(m, watchdogs_[m].storming_mask(), now_ns);
  }
}

// Whether priority p may have packets waiting on member m: its classes handed the member some
// this period, or the watchdog already counts p as stuck there (a queue that holds what came
// earlier). A priority with nothing to send is never stuck, however long the pauses on it last
// while the other priorities fill the queue.
bool BondScheduler::has_waiting(std::size_t m, std::uint8_t p,
                                const bond::ClassMemberCounts& offered) {
  std::uint64_t handed = 0;
  for (std::size_t c = 0; c < lanes_.size(); ++c) {
    if (lanes_[c].priority == p) handed += offered[c][m];
  }
  std::uint64_t& last = handed_[m][p];
  const bool more = handed != last;
  last = handed;
  return more || watchdogs_[m].detector(p).stuck_since_ns().has_value();
}

void BondScheduler::log_storm(std::size_t m, const health::PfcStormEvent& event) const {
  std::string classes;
  for (std::size_t c = 0; c < lanes_.size(); ++c) {
    if (lanes_[c].priority != event.priority) continue;
    const std::vector<classify::ClassSpec>& spec = bond_.config().classes.classes;
    classes +=
        (classes.empty() ? "" : ", ") + (c < spec.size() ? spec[c].name : std::string("all"));
  }
  const config::PfcWatchdogConfig& watchdog = bond_.config().scheduler.pfc_watchdog;
  const std::string& member = bond_.config().members[m];
  if (event.kind == health::PfcStormEventKind::storm_began) {
    const char* action = watchdog.action == config::StormAction::kDrop
                             ? "their packets to it are dropped (pfc_storm)"
                             : "their traffic moves to the other members";
    BRAID_LOG_TO(kBond, WARNING,
                 "bond %s: member %s: PFC storm: %s; classes on priority %u (%s): %s until the "
                 "pauses stop for %u ms (scheduler.pfc_watchdog)\n",
                 bond_.name().c_str(), member.c_str(), event.evidence.c_str(),
                 unsigned{event.priority}, classes.c_str(), action,
                 watchdog.settings.storm_restore_ms);
  } else {
    BRAID_LOG_TO(kBond, WARNING, "bond %s: member %s: PFC storm ended: %s\n", bond_.name().c_str(),
                 member.c_str(), event.evidence.c_str());
  }
}

// The control thread also runs LACP and failover: a source that takes a tenth of the period to
// read is worth one line, once, with what to do about it.
void BondScheduler::note_counters_read(std::uint64_t reading_ns) {
  counters_read_ns_ = reading_ns;
  counters_read_max_ns_ = std::max(counters_read_max_ns_, reading_ns);
  const std::uint64_t period_ns = period_ns_;
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
  std::uint64_t next = next_ns_;
  for (const Lane& lane : lanes_) {
    if (const std::uint64_t release_ns = lane.scheduler.next_release_ns(); release_ns != 0)
      next = std::min(next, release_ns);
  }
  return next;
}

std::uint64_t BondScheduler::poll(std::uint64_t now_ns) {
  // Inputs before activity: a packet a worker distributed before the time the inputs count up
  // to is then in the activity read after (held_moves.hpp relies on it).
  if (now_ns < next_ns_) {
    // Between periods only moves in progress have work.
    bool gathered = false;
    for (std::size_t c = 0; c < lanes_.size(); ++c) {
      const std::uint64_t release_ns = lanes_[c].scheduler.next_release_ns();
      if (release_ns != 0 && now_ns >= release_ns) {
        if (!gathered) gather_inputs(now_ns);
        gathered = true;
        release(c, now_ns);
      }
      finish_pending_hash(c, now_ns);
    }
    return next_wakeup_ns();
  }
  if (lag_ != nullptr) lag_->record(DeadlineKind::kSchedulerPeriod, next_ns_, now_ns);
  next_ns_ = now_ns + period_ns_;
  gather_inputs(now_ns);
  if (policing_) policing_->period(now_ns, inputs_);
  for (std::size_t c = 0; c < lanes_.size(); ++c) {
    period(c, now_ns);
    finish_pending_hash(c, now_ns);
  }
  return next_wakeup_ns();
}

void BondScheduler::release(std::size_t c, std::uint64_t now_ns) {
  Lane& lane = lanes_[c];
  gather_activity(c, now_ns);
  if (auto table =
          lane.scheduler.release(now_ns, lane.inputs, lane.activity, bond_.assignment(c))) {
    if (const auto generation = bond_.publish_assignment(c, *table, now_ns, "moves completed"))
      lane.scheduler.note_published(*generation);
  }
}

void BondScheduler::period(std::size_t c, std::uint64_t now_ns) {
  Lane& lane = lanes_[c];
  // A class under hash with nothing on its way, while the workers record no activity at all (no
  // class is under a flowlet policy): its counts cannot have moved, so reading them (buckets x
  // workers) would only cost the protocol loop. While any class records, every class's counts
  // are read, so a later switch from hash does not see them jump by all that hash sent.
  const bool still = !moves_flowlets(lane.scheduler.policy()) && !lane.scheduler.settling() &&
                     lane.scheduler.moves_in_progress() == 0 && !bond_.records_activity();
  if (!still) gather_activity(c, now_ns);
  const StepResult result =
      lane.scheduler.step(now_ns, lane.inputs, lane.activity, bond_.assignment(c));
  if (result.weights) bond_.set_weight_targets(c, *result.weights, now_ns);
  if (result.buckets) {
    if (const auto generation =
            bond_.publish_assignment(c, *result.buckets, now_ns, "flowlet moves"))
      lane.scheduler.note_published(*generation);
  }
  log_weight_changes(c);
}

// Logs the changes this period added (the history is bounded; count from the total).
void BondScheduler::log_weight_changes(std::size_t c) {
  Lane& lane = lanes_[c];
  const Snapshot snap = lane.scheduler.snapshot();
  const std::uint64_t fresh =
      std::min<std::uint64_t>(snap.weight_changes - lane.history_logged, snap.history.size());
  const classify::ClassifierSpec& classes = bond_.config().classes;
  const std::string in_class =
      c < classes.classes.size() ? " in class " + classes.classes[c].name : "";
  for (std::size_t i = snap.history.size() - fresh; i < snap.history.size(); ++i) {
    const WeightChange& change = snap.history[i];
    const std::vector<std::string>& names = bond_.config().members;
    const std::string member =
        change.member < names.size() ? names[change.member] : "#" + std::to_string(change.member);
    BRAID_LOG_TO(kBond, INFO, "bond %s: member %s weight %u -> %u%s (%s)\n", bond_.name().c_str(),
                 member.c_str(), change.from, change.to, in_class.c_str(), change.cause.c_str());
  }
  lane.history_logged = snap.weight_changes;
}

void BondScheduler::finish_pending_hash(std::size_t c, std::uint64_t now_ns) {
  const Lane& lane = lanes_[c];
  if (lane.hash_pending && lane.scheduler.moves_in_progress() == 0 && !lane.scheduler.settling())
    apply_policy(c, now_ns);
}

namespace {

std::optional<PolicyKind> policy_or_error(const std::string& name, std::string& error) {
  const std::optional<PolicyKind> kind = parse_policy(name);
  if (!kind) error = "unknown policy \"" + name + "\" (known: " + config::kPolicyNames + ")";
  return kind;
}

}  // namespace

void BondScheduler::switch_policy(std::size_t c, PolicyKind kind, std::uint64_t now_ns) {
  lanes_[c].scheduler.set_policy(kind, now_ns);
  apply_policy(c, now_ns);
}

bool BondScheduler::set_policy(const std::string& name, std::uint64_t now_ns, std::string& error) {
  const std::optional<PolicyKind> kind = policy_or_error(name, error);
  if (!kind) return false;
  const config::BondConfig& config = bond_.config();
  if (*kind == PolicyKind::kSpray && !config.scheduler.out_of_order_placement) {
    const classify::ClassifierSpec& spec = config.classes;
    error = spec.enabled() ? "" : classify::spray_on_roce_error(spec, 0, "bond " + bond_.name());
    for (std::size_t c = 0; c < lanes_.size() && spec.enabled() && error.empty(); ++c) {
      if (!lanes_[c].own_policy) {
        error = classify::spray_on_roce_error(spec, static_cast<classify::ClassId>(c),
                                              "class " + spec.classes[c].name);
      }
    }
    if (!error.empty()) return false;
  }
  policy_ = *kind;
  for (std::size_t c = 0; c < lanes_.size(); ++c) {
    if (!lanes_[c].own_policy) switch_policy(c, *kind, now_ns);
  }
  return true;
}

bool BondScheduler::set_class_policy(const std::string& class_name, const std::string& policy,
                                     std::uint64_t now_ns, std::string& error) {
  const std::vector<classify::ClassSpec>& classes = bond_.config().classes.classes;
  const auto found =
      std::find_if(classes.begin(), classes.end(),
                   [&](const classify::ClassSpec& c) { return c.name == class_name; });
  if (found == classes.end()) {
    std::string known;
    for (const classify::ClassSpec& c : classes)
      known += (known.empty() ? "" : ", ") + c.name;
    error = classes.empty() ? "bond " + bond_.name() + " has no traffic classes"
                            : "bond " + bond_.name() + " has no class " + class_name +
                                  " (its classes: " + known + ")";
    return false;
  }
  const std::optional<PolicyKind> kind = policy_or_error(policy, error);
  if (!kind) return false;
  const auto c = static_cast<std::size_t>(found - classes.begin());
  if (*kind == PolicyKind::kSpray && !bond_.config().scheduler.out_of_order_placement) {
    error = classify::spray_on_roce_error(bond_.config().classes, static_cast<classify::ClassId>(c),
                                          "class " + class_name);
    if (!error.empty()) return false;
  }
  lanes_[c].own_policy = true;
  switch_policy(c, *kind, now_ns);
  return true;
}

bool BondScheduler::set_weight(std::size_t member, std::uint32_t weight, std::uint64_t now_ns,
                               std::string& error) {
  if (member >= bond_.member_count() || weight == 0 || weight > 1000) {
    error = "member must be 0.." + std::to_string(bond_.member_count() - 1) + " and weight 1..1000";
    return false;
  }
  for (std::size_t c = 0; c < lanes_.size(); ++c) {
    lanes_[c].scheduler.set_weight(member, weight, now_ns);
    const PolicyKind kind = lanes_[c].scheduler.policy();
    if (kind == PolicyKind::kSpray) {
      bond_.set_weights(c, lanes_[c].scheduler.weights(), now_ns);
    } else if (kind != PolicyKind::kHash) {
      bond_.set_weight_targets(c, lanes_[c].scheduler.weights(), now_ns);
    }
  }
  return true;
}

void BondScheduler::set_flowlet_gap_us(std::uint32_t gap_us) {
  for (Lane& lane : lanes_)
    lane.scheduler.set_flowlet_gap_ns(gap_us * 1000ull);
}

}  // namespace braid::sched
