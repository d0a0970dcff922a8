#include "sched/scheduler.hpp"

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
      member_load_(members, 0.0),
      sent_before_(members, 0) {
  settings_.weights.resize(members, 1);
  last_weights_ = weights();
}

std::vector<std::uint32_t> Scheduler::weights() const {
  std::vector<std::uint32_t> out(settings_.weights.size());
  for (std::size_t m = 0; m < out.size(); ++m) {
    switch (policy_->kind()) {
      case PolicyKind::kHash:
      case PolicyKind::kLqf:
        out[m] = 1000;  // equal members
        break;
      case PolicyKind::kWrr:
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
  const std::vector<std::uint32_t> effective = weights();
  if (effective != last_weights_) {
    last_weights_ = effective;
    result.weights = effective;
  }
  std::vector<MemberState> states(aimd_.size());
  for (std::size_t m = 0; m < states.size() && m < members.size(); ++m)
    states[m] = {members[m].distributing, effective[m], members[m].queue_depth};
  // A bucket's last packet may still sit in its member's queue: the gap grows by the time that
  // queue takes to drain at the rate the member actually sent last period.
  std::vector<std::uint64_t> drain_ns(aimd_.size(), 0);
  for (std::size_t m = 0; m < drain_ns.size() && m < members.size(); ++m) {
    const double sent = static_cast<double>(members[m].counters.tx_packets - sent_before_[m]);
    sent_before_[m] = members[m].counters.tx_packets;
    if (members[m].queue_depth && *members[m].queue_depth != 0 && elapsed_ns != 0) {
      drain_ns[m] = sent > 0 ? static_cast<std::uint64_t>(*members[m].queue_depth *
                                                          static_cast<double>(elapsed_ns) / sent)
                             : elapsed_ns;
    }
  }
  const std::uint32_t bucket_count = flowlets_.buckets();
  const std::unique_ptr<bool[]> movable(new bool[bucket_count]);
  for (std::uint32_t b = 0; b < bucket_count; ++b) {
    const std::uint64_t extra =
        b < buckets.size() && buckets[b] < drain_ns.size() ? drain_ns[buckets[b]] : 0;
    movable[b] = flowlets_.movable(b, now_ns, extra);
  }
  const std::span<const double> load = flowlets_.load();
  std::fill(member_load_.begin(), member_load_.end(), 0.0);
  for (std::size_t b = 0; b < buckets.size() && b < load.size(); ++b) {
    if (buckets[b] < member_load_.size()) member_load_[buckets[b]] += load[b];
  }
  PlanInput input{states, buckets, load, std::span<const bool>(movable.get(), bucket_count),
                  settings_.max_moves};
  Plan plan = policy_->plan(input);
  if (plan.moved != 0) {
    flowlets_.count_moves(plan.moved);
    result.moved = plan.moved;
    result.buckets = std::move(plan.buckets);
  }
  return result;
}

void Scheduler::set_policy(PolicyKind kind, std::uint64_t now_ns) {
  if (kind == policy_->kind()) return;
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
    snap.members.push_back(member);
  }
  snap.history.assign(history_.begin(), history_.end());
  return snap;
}

}  // namespace braid::sched
