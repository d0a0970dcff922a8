#include "sched/dpdk/sched_commands.hpp"

#include <algorithm>
#include <cstdio>

#include "bond/dpdk/bond.hpp"
#include "common/clock.hpp"
#include "control/control_plane.hpp"
#include "control/edit_distance.hpp"
#include "sched/dpdk/bond_scheduler.hpp"

namespace braid::sched {
namespace {

using control::Args;
using control::Output;
using control::Value;

constexpr std::size_t kRecentChanges = 10;
constexpr std::uint32_t kMaxWeight = 1000;             // BondScheduler::set_weight's range
constexpr std::uint64_t kMaxFlowletGapUs = 1'000'000;  // the config's range (flowlet_gap_us)

Value fraction(double ratio) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return Value::displayed(ratio, text);
}

Value fixed(double number, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, number);
  return Value::displayed(number, text);
}

std::string age_text(std::uint64_t then_ns, std::uint64_t now_ns) {
  char text[32];
  std::snprintf(text, sizeof text, "-%.3fs",
                then_ns <= now_ns ? static_cast<double>(now_ns - then_ns) / 1e9 : 0.0);
  return text;
}

std::vector<ScheduledBond> chosen(const std::vector<ScheduledBond>& bonds, const Args& args) {
  std::vector<ScheduledBond> result;
  for (const ScheduledBond& b : bonds) {
    if (!args.has("bond") || b.bond->name() == args.get("bond")) result.push_back(b);
  }
  return result;
}

const ScheduledBond* find_bond(const std::vector<ScheduledBond>& bonds, const std::string& name) {
  for (const ScheduledBond& b : bonds) {
    if (b.bond->name() == name) return &b;
  }
  return nullptr;
}

std::string member_name(const std::vector<bond::MemberStatus>& members, std::size_t m) {
  return m < members.size() ? members[m].name : std::to_string(m);
}

// A bond with traffic classes: each class's own scheduler (the members table above is the
// first class's).
void show_class_schedulers(const ScheduledBond& b, Output& section) {
  const classify::ClassifierSpec& spec = b.bond->config().classes;
  control::Table& table =
      section.table("classes", {"class", "policy", "own_policy", "priority", "bucket_moves",
                                "held_moves", "holding", "settling", "weight_changes"});
  for (std::size_t c = 0; c < b.scheduler->class_count(); ++c) {
    const Snapshot snap = b.scheduler->snapshot(c);
    table.row({c < spec.classes.size() ? spec.classes[c].name : std::to_string(c),
               std::string(policy_name(snap.policy)), b.scheduler->own_policy(c),
               std::uint64_t{b.scheduler->class_priority(c)}, snap.moves, snap.held_moves,
               snap.holding, snap.settling, snap.weight_changes});
  }
}

void show_scheduler(const ScheduledBond& b, Output& out) {
  const std::uint64_t now = monotonic_ns();
  const Snapshot snap = b.scheduler->snapshot();
  const std::vector<bond::MemberStatus> members = b.bond->members();
  Output& section = out.section(b.bond->name());
  section.value("policy", std::string(policy_name(b.scheduler->policy())));
  section.value("flowlet_gap_us", snap.flowlet_gap_ns / 1000);
  section.value("period_ms", fixed(static_cast<double>(snap.period_ns) / 1e6, "%.1f"));
  section.value("periods", snap.periods);
  section.value("bucket_moves", snap.moves);
  section.value("held_moves", snap.held_moves);
  section.value("holding", snap.holding);
  section.value("holds_timed_out", snap.holds_timed_out);
  // After a switch to hash: idle buckets still on their way to equal shares (the table is handed
  // to the static rebuild once there, so no busy bucket moves at the switch).
  section.value("settling", snap.settling);
  section.value("weight_changes", snap.weight_changes);
  if (b.scheduler->source() != nullptr) {
    section.value("congestion_source", std::string(b.scheduler->source()->name()));
    section.value("counters_read_us",
                  fixed(static_cast<double>(b.scheduler->counters_read_ns()) / 1e3, "%.1f"));
    section.value("counters_read_max_us",
                  fixed(static_cast<double>(b.scheduler->counters_read_max_ns()) / 1e3, "%.1f"));
  }
  control::Table& table = section.table(
      "members", {"member", "distributing", "configured_weight", "effective_weight", "aimd_factor",
                  "score", "pause", "marked", "discard", "pause_frames", "ecn_marked", "cnp",
                  "discards", "queue_depth", "delay_us", "drain_kpps", "load"});
  for (std::size_t m = 0; m < snap.members.size(); ++m) {
    const MemberSnapshot& ms = snap.members[m];
    const CongestionCounters& c = ms.counters;
    auto counter = [&c](CongestionCounters::Field field, std::uint64_t value) -> Value {
      return c.has(field) ? Value(value) : Value::missing();
    };
    table.row(
        {member_name(members, m), m < members.size() && members[m].distributing,
         ms.configured_weight, ms.weight, fixed(ms.factor_permille / 1000.0, "%.3f"),
         fixed(ms.score, "%.3f"), fraction(ms.last.pause_fraction), fraction(ms.last.mark_fraction),
         fraction(ms.last.discard_fraction),
         counter(CongestionCounters::kPauseFrames, c.pause_frames),
         counter(CongestionCounters::kEcnMarked, c.ecn_marked),
         counter(CongestionCounters::kCnp, c.cnp),
         counter(CongestionCounters::kDiscards, c.discards), Value::optional(ms.queue_depth),
         ms.delay_ns ? fixed(static_cast<double>(*ms.delay_ns) / 1e3, "%.1f") : Value::missing(),
         ms.drain_per_ns > 0 ? fixed(ms.drain_per_ns * 1e6, "%.1f") : Value::missing(),
         fixed(ms.load, "%.1f")});
  }
  if (b.scheduler->class_count() > 1) show_class_schedulers(b, section);
  control::Table& history =
      section.table("weight_history", {"age", "member", "from", "to", "cause"});
  const std::size_t first =
      snap.history.size() > kRecentChanges ? snap.history.size() - kRecentChanges : 0;
  for (std::size_t i = first; i < snap.history.size(); ++i) {
    const WeightChange& change = snap.history[i];
    history.row({age_text(change.time_ns, now), member_name(members, change.member), change.from,
                 change.to, change.cause});
  }
}

void register_metrics(control::ControlPlane& control, const std::vector<ScheduledBond>& bonds) {
  control.metrics().add_collector([bonds](control::MetricWriter& w) {
    using control::MetricType;
    struct Row {
      std::string bond;
      std::string member;
      MemberSnapshot snapshot;
    };
    std::vector<Row> rows;
    for (const ScheduledBond& b : bonds) {
      const Snapshot snap = b.scheduler->snapshot();
      const std::vector<bond::MemberStatus> members = b.bond->members();
      for (std::size_t m = 0; m < snap.members.size(); ++m)
        rows.push_back({b.bond->name(), member_name(members, m), snap.members[m]});
    }
    w.family("braid_member_effective_weight",
             "the member's weight after congestion feedback (configured x AIMD factor)",
             MetricType::kGauge);
    for (const Row& r : rows)
      w.sample({{"bond", r.bond}, {"member", r.member}}, std::uint64_t{r.snapshot.weight});
    w.family("braid_member_pfc_pause_total", "PFC pause frames the member received",
             MetricType::kCounter);
    for (const Row& r : rows) {
      if (r.snapshot.counters.has(CongestionCounters::kPauseFrames))
        w.sample({{"bond", r.bond}, {"member", r.member}, {"direction", "rx"}},
                 r.snapshot.counters.pause_frames);
    }
    w.family("braid_member_ecn_marked_total", "ECN-marked packets seen for the member",
             MetricType::kCounter);
    for (const Row& r : rows) {
      if (r.snapshot.counters.has(CongestionCounters::kEcnMarked))
        w.sample({{"bond", r.bond}, {"member", r.member}}, r.snapshot.counters.ecn_marked);
    }
    w.family("braid_member_cnp_total", "congestion notification packets for the member",
             MetricType::kCounter);
    for (const Row& r : rows) {
      if (r.snapshot.counters.has(CongestionCounters::kCnp))
        w.sample({{"bond", r.bond}, {"member", r.member}}, r.snapshot.counters.cnp);
    }
    w.family("braid_scheduler_counters_read_seconds",
             "what reading the bond's congestion counters took in the last period",
             MetricType::kGauge);
    for (const ScheduledBond& b : bonds) {
      if (b.scheduler->source() != nullptr)
        w.sample({{"bond", b.bond->name()}},
                 static_cast<double>(b.scheduler->counters_read_ns()) / 1e9);
    }
  });
}

}  // namespace

void register_sched_commands(control::ControlPlane& control, std::vector<ScheduledBond> bonds) {
  if (bonds.empty()) return;
  control::CommandRegistry& commands = control.commands();
  commands.define_param(
      "weight", {.help = "a member weight, 1..1000 (read by the wrr and adaptive policies only)",
                 .numeric = true,
                 .min = 1,
                 .max = kMaxWeight});
  commands.define_param("microseconds", {.help = "flowlet gap in microseconds, 1..1000000",
                                         .numeric = true,
                                         .min = 1,
                                         .max = kMaxFlowletGapUs});
  commands.add("show scheduler [<bond>]",
               "policy, flowlet gap, weights, AIMD factor, congestion inputs, weight changes",
               [bonds](const Args& args, Output& out) {
                 for (const ScheduledBond& b : chosen(bonds, args))
                   show_scheduler(b, out);
               });
  commands.add("set bond <bond> policy hash|wrr|lqf|adaptive|latency|spray",
               "the bond's distribution policy (doc/scheduler.md)",
               [bonds](const Args& args, Output& out) {
                 const ScheduledBond* b = find_bond(bonds, args.get("bond"));
                 const std::string name =
                     args.pick({"hash", "wrr", "lqf", "adaptive", "latency", "spray"}, "hash");
                 std::string error;
                 if (b == nullptr || !b->scheduler->set_policy(name, monotonic_ns(), error)) {
                   out.error(b == nullptr ? "no bond " + args.get("bond") : error);
                   return;
                 }
                 out.line("bond " + b->bond->name() + ": policy " + name);
                 std::string kept;
                 for (std::size_t c = 0; c < b->scheduler->class_count(); ++c) {
                   if (b->scheduler->own_policy(c))
                     kept += (kept.empty() ? "" : ", ") + b->bond->config().classes.classes[c].name;
                 }
                 if (!kept.empty()) out.line("classes with a policy of their own keep it: " + kept);
               });
  commands.define_param("class", {.help = "a traffic class of the bond (bonds[].classes.list)"});
  commands.add(
      "set bond <bond> class <class> policy hash|wrr|lqf|adaptive|latency|spray",
      "one traffic class's own distribution policy (doc/classes.md)",
      [bonds](const Args& args, Output& out) {
        const ScheduledBond* b = find_bond(bonds, args.get("bond"));
        if (b == nullptr) {
          out.error("no bond " + args.get("bond"));
          return;
        }
        const std::string name =
            args.pick({"hash", "wrr", "lqf", "adaptive", "latency", "spray"}, "hash");
        std::string error;
        if (!b->scheduler->set_class_policy(args.get("class"), name, monotonic_ns(), error)) {
          out.error(error);
          return;
        }
        out.line("bond " + b->bond->name() + ": class " + args.get("class") + " policy " + name);
      });
  commands.add(
      "set bond <bond> weight <member> <weight>",
      "a member's configured weight: wrr, adaptive and spray use weights; hash, lqf and "
      "latency give every member an equal share",
      [bonds](const Args& args, Output& out) {
        const ScheduledBond* b = find_bond(bonds, args.get("bond"));
        if (b == nullptr) {
          out.error("no bond " + args.get("bond"));
          return;
        }
        const std::vector<bond::MemberStatus> members = b->bond->members();
        const auto it = std::find_if(members.begin(), members.end(),
                                     [&](const auto& m) { return m.name == args.get("member"); });
        if (it == members.end()) {
          std::vector<std::string> names;
          std::string list;
          for (const auto& m : members) {
            names.push_back(m.name);
            list += (list.empty() ? "" : ", ") + m.name;
          }
          const std::string_view guess = control::closest(args.get("member"), names);
          out.error("member " + args.get("member") + " is not in bond " + b->bond->name() +
                    (guess.empty() ? "" : "; did you mean \"" + std::string(guess) + "\"?") +
                    " (its members: " + list + ")");
          return;
        }
        const auto weight = static_cast<std::uint32_t>(args.number("weight").value_or(0));
        std::string error;
        if (!b->scheduler->set_weight(static_cast<std::size_t>(it - members.begin()), weight,
                                      monotonic_ns(), error)) {
          out.error(error);
          return;
        }
        out.line("bond " + b->bond->name() + ": member " + it->name + " weight " +
                 std::to_string(weight));
        const PolicyKind policy = b->scheduler->policy();
        if (policy == PolicyKind::kHash || policy == PolicyKind::kLqf ||
            policy == PolicyKind::kLatency) {
          out.line("policy " + std::string(policy_name(policy)) +
                   " ignores weights: this one applies under wrr, adaptive or spray");
        }
      });
  commands.add(
      "set bond <bond> flowlet gap <microseconds>",
      "idle time before a bucket may move to another member",
      [bonds](const Args& args, Output& out) {
        const ScheduledBond* b = find_bond(bonds, args.get("bond"));
        if (b == nullptr) {
          out.error("no bond " + args.get("bond"));
          return;
        }
        const auto gap = static_cast<std::uint32_t>(args.number("microseconds").value_or(0));
        b->scheduler->set_flowlet_gap_us(gap);
        out.line("bond " + b->bond->name() + ": flowlet gap " + std::to_string(gap) + " us");
      });
  control.telemetry().add_command("/braid/scheduler", "scheduler: policy, weights, congestion",
                                  control.commands(), "show scheduler");
  register_metrics(control, bonds);
}

}  // namespace braid::sched
