#include "bond/dpdk/class_tables.hpp"

#include <algorithm>

#include "common/plural.hpp"
#include "health/pfc_storm.hpp"
#include "log/log_types.hpp"

namespace braid::bond {

ClassTables::ClassTables(const config::BondConfig& config, std::size_t members, rte_rcu_qsbr* qsbr,
                         BondEventLog& events, BondCounters& counters)
    : config_(&config),
      members_(members),
      events_(&events),
      counters_(&counters),
      publisher_(qsbr) {
  const bool classes = !config.classes.classes.empty();
  if (classes) class_count_ = config.classes.classes.size();
  const auto every_member = static_cast<std::uint16_t>((1u << members) - 1);
  for (std::size_t c = 0; c < class_count_; ++c) {
    masks_[c] = every_member;
    if (classes && !config.classes.classes[c].members.empty()) {
      masks_[c] = 0;
      for (const std::uint16_t m : config.classes.classes[c].members)
        masks_[c] = static_cast<std::uint16_t>(masks_[c] | 1u << m);
    }
    weights_[c].assign(members, 1);
  }
}

void ClassTables::reset() {
  buckets_.assign(class_count_ * config_->buckets, kNoMember);
  homes_.assign(class_count_ * config_->buckets, kNoMember);
}

void ClassTables::rebuild(const TablePlan& plan, std::uint64_t now_ns, const std::string& cause) {
  auto table = std::make_unique<BondTable>();
  const bool active_backup = config_->mode == config::BondMode::kActiveBackup;
  const std::uint32_t per_class = config_->buckets;
  std::uint32_t moved = 0;
  for (std::size_t c = 0; c < class_count_; ++c) {
    const std::vector<std::uint32_t> weights =
        active_backup ? plan.base : class_weights(c, plan, now_ns);
    const std::span<MemberIndex> buckets = class_buckets(c);
    const std::span<const MemberIndex> homes(homes_.data() + c * per_class, per_class);
    const RebalanceResult result = flowlet_managed_[c] ? reassign_orphans(buckets, weights)
                                                       : rebalance(buckets, weights, homes);
    std::copy(result.buckets.begin(), result.buckets.end(), buckets.begin());
    moved += result.moved;
    update_homes(c);
    for (std::size_t m = 0; m < members_; ++m) {
      if (weights[m] == 0) continue;
      table->distributing[m] = true;
      table->class_members[c] = static_cast<std::uint16_t>(table->class_members[c] | 1u << m);
    }
  }
  table->collecting = plan.collecting;
  table->buckets = buckets_;
  table->bucket_shift = 32 - static_cast<std::uint32_t>(__builtin_ctz(per_class));
  table->class_shift = static_cast<std::uint32_t>(__builtin_ctz(per_class));
  table->spray_classes = spray_classes_;
  if (config_->scheduler.pfc_watchdog.action == config::StormAction::kDrop) {
    for (std::size_t m = 0; m < members_; ++m) {
      for (std::size_t c = 0; c < class_count_; ++c) {
        if ((plan.stormed[m] >> c & 1u) == 0) continue;
        table->storm_dropping[c] = static_cast<std::uint16_t>(table->storm_dropping[c] | 1u << m);
        table->storm_drops = true;
      }
    }
  }
  const BondTable* previous = publisher_.current();
  const bool same = previous != nullptr && previous->buckets == table->buckets &&
                    previous->collecting == table->collecting &&
                    previous->distributing == table->distributing &&
                    previous->class_members == table->class_members &&
                    previous->spray_classes == table->spray_classes &&
                    previous->storm_dropping == table->storm_dropping;
  if (same) return;
  publish(std::move(table), now_ns, moved);
  std::string distributing;
  for (std::size_t m = 0; m < members_; ++m) {
    if (publisher_.current()->distributing[m]) distributing += " " + config_->members.at(m);
  }
  events_->log(now_ns, "table " + std::to_string(publisher_.published()) + " (" + cause +
                           "): " + counted(moved, "bucket") + " moved; distributing:" +
                           (distributing.empty() ? " none" : distributing));
}

void ClassTables::publish(std::unique_ptr<BondTable> table, std::uint64_t now_ns,
                          std::uint32_t moved) {
  publisher_.publish(std::move(table));
  last_publish_ns_ = now_ns;
  ++counters_->tables_published;
  counters_->buckets_moved += moved;
}

std::vector<std::uint32_t> ClassTables::class_weights(std::size_t c, const TablePlan& plan,
                                                      std::uint64_t now_ns) {
  const std::vector<std::uint32_t>& base = plan.base;
  std::vector<std::uint32_t> weights(members_, 0);
  bool any = false;
  for (std::size_t m = 0; m < members_; ++m) {
    if ((masks_[c] >> m & 1) == 0 || storm_excludes(c, plan.stormed[m])) continue;
    weights[m] = base[m] * weights_[c][m];
    any |= weights[m] != 0;
  }
  const bool classes = !config_->classes.classes.empty();
  const bool spill = !any && classes &&
                     std::any_of(base.begin(), base.end(), [](std::uint32_t w) { return w != 0; });
  if (spill) {
    // None of the class's own members can carry it: the others do, rather than drop it.
    for (std::size_t m = 0; m < members_; ++m) {
      if (!storm_excludes(c, plan.stormed[m]))
        weights[m] = base[m] * std::max<std::uint32_t>(weights_[c][m], 1);
    }
  }
  if (spill != spilling_[c]) {
    spilling_[c] = spill;
    const std::string& name = config_->classes.classes[c].name;
    events_->log(now_ns, spill ? "class " + name +
                                     ": none of its members can carry traffic; it spills over to "
                                     "the bond's other members"
                               : "class " + name + ": back on its own members");
  }
  return weights;
}

bool ClassTables::storm_excludes(std::size_t c, std::uint8_t stormed) const {
  if (config_->scheduler.pfc_watchdog.action != config::StormAction::kMove) return false;
  // Every class stormed: the member is down (its health), which every table already follows.
  return (stormed >> c & 1u) != 0 && stormed != all_classes();
}

std::span<MemberIndex> ClassTables::class_buckets(std::size_t c) {
  return std::span(buckets_).subspan(c * config_->buckets, config_->buckets);
}

std::span<const MemberIndex> ClassTables::assignment(std::size_t c) const {
  // Before the first rebuild there is no table yet: an empty span, as the table it would be.
  if (buckets_.size() < (c + 1) * config_->buckets) return {};
  return std::span(buckets_).subspan(c * config_->buckets, config_->buckets);
}

bool ClassTables::class_distributes(std::size_t c, std::size_t m) const {
  const BondTable* table = publisher_.current();
  return table != nullptr && c < class_count_ && (table->class_members[c] >> m & 1) != 0;
}

void ClassTables::update_homes(std::size_t c) {
  std::vector<std::uint32_t> nominal(members_, 0);
  for (std::size_t m = 0; m < members_; ++m) {
    if ((masks_[c] >> m & 1) != 0) nominal[m] = weights_[c][m];
  }
  const std::size_t offset = c * config_->buckets;
  bond::update_homes(std::span(homes_).subspan(offset, config_->buckets),
                     std::span<const MemberIndex>(buckets_).subspan(offset, config_->buckets),
                     nominal);
}

void ClassTables::set_weights(std::size_t c, const std::vector<std::uint32_t>& weights) {
  for (std::size_t m = 0; m < members_ && m < weights.size(); ++m)
    weights_.at(c)[m] = weights[m];
}

bool ClassTables::set_weight_targets(std::size_t c, const std::vector<std::uint32_t>& weights) {
  bool usability_changed = false;
  for (std::size_t m = 0; m < members_ && m < weights.size(); ++m) {
    std::uint32_t& weight = weights_.at(c)[m];
    usability_changed |= (weight == 0) != (weights[m] == 0);
    weight = weights[m];
  }
  return usability_changed;
}

bool ClassTables::weighed(std::size_t m) const {
  return std::any_of(weights_.begin(), weights_.begin() + class_count_,
                     [m](const std::vector<std::uint32_t>& w) { return w[m] != 0; });
}

void ClassTables::set_flowlet_managed(std::size_t c, bool managed) {
  flowlet_managed_.at(c) = managed;
  const bool any = std::any_of(flowlet_managed_.begin(), flowlet_managed_.begin() + class_count_,
                               [](bool flowlets) { return flowlets; });
  record_activity_.store(any, std::memory_order_relaxed);
}

bool ClassTables::set_spray(std::size_t c, bool spray) {
  const auto bit = static_cast<std::uint8_t>(1u << c);
  const auto mask = static_cast<std::uint8_t>(spray ? spray_classes_ | bit : spray_classes_ & ~bit);
  if (c >= class_count_ || mask == spray_classes_) return false;
  spray_classes_ = mask;
  return publisher_.current() != nullptr;
}

std::optional<std::uint64_t> ClassTables::publish_assignment(std::size_t c,
                                                             std::span<const MemberIndex> buckets,
                                                             std::uint64_t now_ns,
                                                             const std::string& cause) {
  const BondTable* current = publisher_.current();
  if (current == nullptr || c >= class_count_ || buckets.size() != config_->buckets)
    return std::nullopt;
  const std::span<MemberIndex> own = class_buckets(c);
  std::uint32_t moved = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b] != own[b]) {
      const bool held = buckets[b] == kHeldBucket;
      if (!held && (buckets[b] >= members_ || (current->class_members[c] >> buckets[b] & 1) == 0))
        return std::nullopt;
      ++moved;
    }
  }
  if (moved == 0) return current->generation;
  std::copy(buckets.begin(), buckets.end(), own.begin());
  auto table = std::make_unique<BondTable>(*current);
  table->buckets = buckets_;
  update_homes(c);
  publish(std::move(table), now_ns, moved);
  // Flowlet moves happen every period: counted, logged only at debug level.
  BRAID_LOG_TO(kBond, DEBUG, "bond %s: table %llu (%s): %s moved\n", config_->name.c_str(),
               static_cast<unsigned long long>(publisher_.published()), cause.c_str(),
               counted(moved, "bucket").c_str());
  return publisher_.published();
}

std::uint8_t ClassTables::class_priority(std::size_t c) const {
  const auto bond_priority =
      static_cast<std::uint8_t>(config_->scheduler.congestion.priority % health::kPfcPriorities);
  const std::vector<classify::ClassSpec>& classes = config_->classes.classes;
  return c < classes.size() ? classes[c].priority.value_or(bond_priority) : bond_priority;
}

std::uint8_t ClassTables::pfc_priorities() const {
  unsigned mask = 0;
  for (std::size_t c = 0; c < class_count_; ++c)
    mask |= 1u << class_priority(c);
  return static_cast<std::uint8_t>(mask);
}

std::uint8_t ClassTables::classes_on(std::uint8_t priorities) const {
  unsigned mask = 0;
  for (std::size_t c = 0; c < class_count_; ++c) {
    if ((priorities >> class_priority(c) & 1u) != 0) mask |= 1u << c;
  }
  return static_cast<std::uint8_t>(mask);
}

}  // namespace braid::bond
