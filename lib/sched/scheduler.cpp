#include "sched/scheduler.hpp"

#include <algorithm>
#include <cstdio>

namespace braid::sched {
namespace {

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", fraction * 100.0);
  return text;
}

// Why the feedback moved a weight, in the words an operator would use.
std::string feedback_cause(const CongestionInputs& in, const AimdController& aimd) {
  if (!aimd.last_was_decrease()) return "clean: additive increase";
  std::string cause = "congested:";
  if (in.pause_fraction > 0) cause += " paused " + percent(in.pause_fraction);
  if (in.mark_fraction > 0) cause += " ECN/CNP " + percent(in.mark_fraction);
  if (in.discard_fraction > 0) cause += " discards " + percent(in.discard_fraction);
  return cause + ": multiplicative decrease";
}

}  // namespace

Scheduler::Scheduler(Settings settings, std::size_t members, std::uint32_t buckets)
    : settings_(std::move(settings)),
      policy_(make_policy(settings_.policy)),
      flowlets_(buckets, settings_.flowlet_gap_ns),
      aimd_(members, AimdController(settings_.aimd)),
      previous_(members),
      last_inputs_(members),
      queue_depth_(members),
      queues_(members),
      member_load_(members, 0.0),
      sent_before_(members, 0),
      delays_(members, DelayEstimate(settings_.aimd.smoothing_permille)),
      sent_per_ns_(members, 0.0) {
  settings_.weights.resize(members, 1);
  last_weights_ = weights();
}

std::vector<std::uint32_t> Scheduler::weights() const {
  std::vector<std::uint32_t> out(settings_.weights.size());
  for (std::size_t m = 0; m < out.size(); ++m) {
    switch (policy_->kind()) {
      case PolicyKind::kHash:
      case PolicyKind::kLqf:
      case PolicyKind::kLatency:
        out[m] = 1000;  // equal members
        break;
      case PolicyKind::kWrr:
      case PolicyKind::kSpray:
        out[m] = settings_.weights[m] * 1000;
        break;
      case PolicyKind::kAdaptive:
        out[m] = settings_.weights[m] * aimd_[m].factor_permille();
        break;
    }
  }
  return out;
}

StepResult Scheduler::step(std::uint64_t now_ns, std::span<const MemberInput> members,
                           std::span<const BucketActivity> activity,
                           std::span<const MemberIndex> buckets) {
  StepResult result;
  const std::uint64_t elapsed_ns = last_step_ns_ == 0 ? 0 : now_ns - last_step_ns_;
  last_step_ns_ = now_ns;
  ++periods_;
  flowlets_.update(activity, settings_.aimd.smoothing_permille);
  follow_feedback(now_ns, elapsed_ns, members);
  const std::vector<std::uint32_t> effective = weights();
  if (effective != last_weights_) {
    last_weights_ = effective;
    result.weights = effective;
  }
  const std::vector<std::uint64_t> drain_ns = drain_times(members, elapsed_ns);
  std::vector<MemberState> states(aimd_.size());
  for (std::size_t m = 0; m < states.size() && m < members.size(); ++m) {
    const std::uint64_t weight =
        std::uint64_t{effective[m]} * std::min(members[m].health_permille, 1000u) / 1000;
    states[m] = {members[m].distributing,   static_cast<std::uint32_t>(weight),
                 members[m].queue_depth,    delays_[m].delay_ns(),
                 delays_[m].drain_per_ns(), sent_per_ns_[m]};
  }
  record_queues(now_ns, members);
  std::vector<MemberIndex> table(buckets.begin(), buckets.end());
  holds_.extend(drain_ns);
  result.moved = release_due(now_ns, members, table);
  // The policy sees held buckets on their destination (where their load is about to go) and
  // may not move them again.
  std::vector<MemberIndex> view = table;
  holds_.show_destinations(view);
  const std::uint32_t bucket_count = flowlets_.buckets();
  const std::unique_ptr<bool[]> movable(new bool[bucket_count]());
  const std::unique_ptr<bool[]> holdable(new bool[bucket_count]());
  const std::unique_ptr<bool[]> held(new bool[bucket_count]());
  holds_.mark_held(std::span<bool>(held.get(), bucket_count));
  const std::size_t busy = holds_.busy_in_progress();
  const std::uint32_t holds_left = policy_->holds_busy() && settings_.max_holds > busy
                                       ? settings_.max_holds - static_cast<std::uint32_t>(busy)
                                       : 0;
  const std::uint64_t gap_ns = flowlets_.gap_ns();
  for (std::uint32_t b = 0; b < bucket_count && b < view.size(); ++b) {
    const MemberIndex member = view[b];
    if (held[b]) continue;
    const std::uint64_t drain = member < drain_ns.size() ? drain_ns[member] : 0;
    // Idle past the gap and the time its member's queue takes to drain at the rate it sent last
    // period: its last packet has probably left. The move itself waits until it certainly has.
    movable[b] = flowlets_.movable(b, now_ns, drain);
    // A queue that stands longer than the gap keeps its busy buckets from ever going idle long
    // enough: they can move only by being held (held_moves.hpp).
    holdable[b] = holds_left != 0 && !movable[b] && !holds_.resting(b, now_ns) &&
                  member < members.size() && members[member].distributing &&
                  members[member].queue_depth.has_value() && drain > gap_ns;
  }
  const std::span<const double> load = flowlets_.load();
  std::fill(member_load_.begin(), member_load_.end(), 0.0);
  for (std::size_t b = 0; b < view.size() && b < load.size(); ++b) {
    if (view[b] < member_load_.size()) member_load_[view[b]] += load[b];
  }
  PlanInput input{states,
                  view,
                  load,
                  std::span<const bool>(movable.get(), bucket_count),
                  settings_.max_moves,
                  std::span<const bool>(holdable.get(), bucket_count),
                  holds_left,
                  elapsed_ns != 0 ? elapsed_ns : settings_.period_ns};
  Plan plan = (settling_ ? *settler_ : *policy_).plan(input);
  if (settling_ && plan.moved == 0 && at_equal_shares(states, view)) settling_ = false;
  // Every move starts held (held_moves.hpp): idle buckets complete theirs as soon as the workers
  // have seen the hold, busy ones when their old member's queue has sent their last packet.
  for (std::uint32_t b = 0; plan.moved != 0 && b < bucket_count && b < plan.buckets.size(); ++b) {
    if (plan.buckets[b] == view[b]) continue;
    holds_.begin(HeldMoves::Kind::kIdle, b, table[b], plan.buckets[b], now_ns,
                 flowlets_.last_seen_ns(b), gap_ns,
                 table[b] < drain_ns.size() ? drain_ns[table[b]] : 0);
  }
  for (const HoldRequest& hold : plan.holds) {
    const MemberIndex from = table[hold.bucket];
    holds_.begin(HeldMoves::Kind::kBusy, hold.bucket, from, hold.to, now_ns,
                 flowlets_.last_seen_ns(hold.bucket), gap_ns, drain_ns[from]);
  }
  result.held = static_cast<std::uint32_t>(plan.holds.size());
  holds_.mark_held(table);
  // What can complete at once does (no worker to wait for in a simulation).
  result.moved += release_due(now_ns, members, table);
  flowlets_.count_moves(result.moved);
  if (!std::equal(table.begin(), table.end(), buckets.begin(), buckets.end()))
    result.buckets = std::move(table);
  return result;
}

void Scheduler::follow_feedback(std::uint64_t now_ns, std::uint64_t elapsed_ns,
                                std::span<const MemberInput> members) {
  for (std::size_t m = 0; m < aimd_.size() && m < members.size(); ++m) {
    queue_depth_[m] = members[m].queue_depth;
    if (elapsed_ns != 0) {
      last_inputs_[m] =
          congestion_inputs(previous_[m], members[m].counters, elapsed_ns, settings_.score);
    }
    previous_[m] = members[m].counters;
    if (!policy_->follows_feedback() || elapsed_ns == 0) continue;
    const std::uint32_t before = settings_.weights[m] * aimd_[m].factor_permille();
    if (aimd_[m].update(last_inputs_[m].score())) {
      record(now_ns, m, before, settings_.weights[m] * aimd_[m].factor_permille(),
             feedback_cause(last_inputs_[m], aimd_[m]));
    }
  }
}

void Scheduler::record_queues(std::uint64_t now_ns, std::span<const MemberInput> members) {
  for (std::size_t m = 0; m < queues_.size(); ++m) {
    if (m < members.size() && members[m].queue_depth &&
        members[m].counters.has(CongestionCounters::kTxPackets)) {
      queues_[m].record(std::min(now_ns, members[m].counted_ns), members[m].counters.tx_packets,
                        *members[m].queue_depth);
    } else {
      queues_[m].clear();
    }
  }
}

// How long each member's queue takes to drain at the rate it actually sent last period (its
// queue depth, when known, over its packets sent per ns); 0 without a depth. Also updates each
// member's delay estimate (the latency policy's), which needs a sent count.
std::vector<std::uint64_t> Scheduler::drain_times(std::span<const MemberInput> members,
                                                  std::uint64_t elapsed_ns) {
  std::vector<std::uint64_t> drain_ns(aimd_.size(), 0);
  for (std::size_t m = 0; m < drain_ns.size() && m < members.size(); ++m) {
    const std::uint64_t now_sent = members[m].counters.tx_packets;
    // A counter that went back (the port was reset) sent nothing we can tell.
    const std::uint64_t sent_count = now_sent >= sent_before_[m] ? now_sent - sent_before_[m] : 0;
    const auto sent = static_cast<double>(sent_count);
    sent_before_[m] = now_sent;
    const bool counted = members[m].counters.has(CongestionCounters::kTxPackets);
    delays_[m].update(counted ? members[m].queue_depth : std::nullopt, sent_count, elapsed_ns);
    sent_per_ns_[m] = counted && elapsed_ns != 0 ? sent / static_cast<double>(elapsed_ns) : 0;
    if (members[m].queue_depth && *members[m].queue_depth != 0 && elapsed_ns != 0) {
      drain_ns[m] = sent > 0 ? static_cast<std::uint64_t>(*members[m].queue_depth *
                                                          static_cast<double>(elapsed_ns) / sent)
                             : elapsed_ns;
    }
  }
  return drain_ns;
}

std::uint32_t Scheduler::release_due(std::uint64_t now_ns, std::span<const MemberInput> members,
                                     std::span<MemberIndex> table) {
  if (holds_.in_progress() == 0) return 0;
  std::vector<MemberProgress> progress(aimd_.size());
  for (std::size_t m = 0; m < progress.size() && m < members.size(); ++m) {
    progress[m].distributing = members[m].distributing;
    progress[m].queue_depth = members[m].queue_depth;
    if (members[m].counters.has(CongestionCounters::kTxPackets))
      progress[m].sent = members[m].counters.tx_packets;
    progress[m].counted_ns = std::min(now_ns, members[m].counted_ns);
    progress[m].acked_generation = members[m].acked_generation;
    progress[m].history = &queues_[m];
  }
  return holds_.release_due(now_ns, table, progress, flowlets_.last_seen_ns(), member_load_);
}

std::optional<std::vector<MemberIndex>> Scheduler::release(std::uint64_t now_ns,
                                                           std::span<const MemberInput> members,
                                                           std::span<const BucketActivity> activity,
                                                           std::span<const MemberIndex> buckets) {
  flowlets_.touch(activity);
  std::vector<MemberIndex> table(buckets.begin(), buckets.end());
  const std::uint32_t released = release_due(now_ns, members, table);
  flowlets_.count_moves(released);
  // Completed moves, or moves given up (back to their old member).
  if (std::equal(table.begin(), table.end(), buckets.begin(), buckets.end())) return std::nullopt;
  return table;
}

// Every distributing member owns its equal share of the buckets (bond::bucket_quotas).
bool Scheduler::at_equal_shares(std::span<const MemberState> members,
                                std::span<const MemberIndex> view) const {
  std::vector<std::uint32_t> weights(members.size(), 0);
  for (std::size_t m = 0; m < members.size(); ++m)
    weights[m] = members[m].distributing ? 1 : 0;
  const auto quotas = bond::bucket_quotas(weights, static_cast<std::uint32_t>(view.size()));
  const auto counts = bond::bucket_counts(view, members.size());
  return counts == quotas;
}

void Scheduler::set_policy(PolicyKind kind, std::uint64_t now_ns) {
  if (kind == policy_->kind()) return;
  settling_ = kind == PolicyKind::kHash;
  if (settling_ && !settler_) settler_ = make_policy(PolicyKind::kWrr);
  const std::vector<std::uint32_t> before = weights();
  const std::string cause = "policy " + std::string(policy_name(policy_->kind())) + " -> " +
                            std::string(policy_name(kind));
  policy_ = make_policy(kind);
  settings_.policy = kind;
  for (AimdController& aimd : aimd_)
    aimd.reset();
  const std::vector<std::uint32_t> after = weights();
  for (std::size_t m = 0; m < after.size(); ++m) {
    if (after[m] != before[m]) record(now_ns, m, before[m], after[m], cause);
  }
}

void Scheduler::set_weight(std::size_t member, std::uint32_t weight, std::uint64_t now_ns) {
  const std::uint32_t before = weights().at(member);
  settings_.weights.at(member) = weight;
  const std::uint32_t after = weights()[member];
  if (after != before)
    record(now_ns, member, before, after, "configured weight " + std::to_string(weight));
}

void Scheduler::record(std::uint64_t now_ns, std::size_t member, std::uint32_t from,
                       std::uint32_t to, std::string cause) {
  ++weight_changes_;
  history_.push_back({now_ns, static_cast<std::uint16_t>(member), from, to, std::move(cause)});
  if (history_.size() > kHistoryCapacity) history_.pop_front();
}

Snapshot Scheduler::snapshot() const {
  Snapshot snap;
  snap.policy = policy_->kind();
  snap.flowlet_gap_ns = flowlets_.gap_ns();
  snap.period_ns = settings_.period_ns;
  snap.periods = periods_;
  snap.moves = flowlets_.moves();
  snap.held_moves = holds_.busy_completed();
  snap.holds_timed_out = holds_.holds_timed_out();
  snap.holding = static_cast<std::uint32_t>(holds_.busy_in_progress());
  snap.settling = settling_;
  snap.weight_changes = weight_changes_;
  const std::vector<std::uint32_t> effective = weights();
  for (std::size_t m = 0; m < aimd_.size(); ++m) {
    MemberSnapshot member;
    member.configured_weight = settings_.weights[m];
    member.weight = effective[m];
    member.factor_permille = aimd_[m].factor_permille();
    member.score = aimd_[m].score_average();
    member.last = last_inputs_[m];
    member.counters = previous_[m];
    member.queue_depth = queue_depth_[m];
    member.load = member_load_[m];
    member.delay_ns = delays_[m].delay_ns();
    member.drain_per_ns = delays_[m].drain_per_ns();
    snap.members.push_back(member);
  }
  snap.history.assign(history_.begin(), history_.end());
  return snap;
}

}  // namespace braid::sched
