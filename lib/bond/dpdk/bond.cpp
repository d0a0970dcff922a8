#include "bond/dpdk/bond.hpp"

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/plural.hpp"
#include "config/config_validate.hpp"
#include "lacp/constants.hpp"
#include "linkemu/link_registry.hpp"
#include "log/log_types.hpp"
#include "port/ethdev_xstats.hpp"

namespace braid::bond {
namespace {

constexpr std::size_t kEventLogCapacity = 256;
constexpr std::uint64_t kHealthSampleInterval = 1'000'000'000;  // the error-rate counters, 1 s

lacp::MacAddress to_lacp_mac(const rte_ether_addr& mac) {
  lacp::MacAddress out{};
  std::memcpy(out.data(), mac.addr_bytes, out.size());
  return out;
}

bool is_usable_unicast(const rte_ether_addr& mac) {
  return rte_is_unicast_ether_addr(&mac) && !rte_is_zero_ether_addr(&mac);
}

// A locally administered address (bit 1 of the first octet) stable across restarts: for ports
// that report none (ring and null PMDs have an all-zero MAC) and bonds whose first member does.
rte_ether_addr derived_mac(const std::string& name, std::size_t index) {
  std::uint32_t hash = 2166136261u;  // FNV-1a over the name
  for (char c : name)
    hash = (hash ^ static_cast<std::uint8_t>(c)) * 16777619u;
  return rte_ether_addr{{0x02, 0x62, static_cast<std::uint8_t>(hash >> 16),
                         static_cast<std::uint8_t>(hash >> 8), static_cast<std::uint8_t>(hash),
                         static_cast<std::uint8_t>(index)}};
}

std::string mac_text(const rte_ether_addr& mac) {
  char text[RTE_ETHER_ADDR_FMT_SIZE];
  rte_ether_format_addr(text, sizeof text, &mac);
  return text;
}

flow::HashPolicy policy_of(const config::BondConfig& config) {
  const flow::HashPolicyParse parsed = flow::parse_hash_policy(config.hash);
  if (!parsed.ok()) throw std::invalid_argument("bond " + config.name + ": " + parsed.error);
  return parsed.policy;
}

}  // namespace

Bond::Bond(const config::BondConfig& config, std::vector<drivers::EthdevPort*> members,
           const BondContext& context)
    : config_(config), context_(context), hasher_(policy_of(config)), publisher_(context.qsbr) {
  if (members.size() > kMaxMembers) {
    throw std::invalid_argument("bond " + config_.name + ": at most " +
                                std::to_string(kMaxMembers) + " members");
  }
  for (drivers::EthdevPort* port : members) {
    Member member;
    member.port = port;
    rte_eth_macaddr_get(port->id(), &member.own_mac);
    if (!is_usable_unicast(member.own_mac)) {
      member.own_mac = derived_mac(config_.name, members_.size() + 1);
    }
    if (port->kernel_ifindex() != 0 && context_.kernel_links != nullptr) {
      context_.kernel_links->watch(port->kernel_ifindex());
    }
    member.health = std::make_unique<health::MemberHealth>(config_.health.settings);
    member.health_sources = std::make_unique<MemberHealthSources>(*port, members_.size(), config_);
    members_.push_back(std::move(member));
  }
  health_xstats_ = health::xstat_names(config_.health.xstats, config_.health.xstats_set);
  std::array<std::uint8_t, 6> configured{};
  if (!config_.mac.empty() && config::parse_mac(config_.mac, configured)) {
    std::memcpy(mac_.addr_bytes, configured.data(), configured.size());
  } else {
    // As Linux bonding does: the first member's address.
    mac_ = members_.front().own_mac;
  }
  // Unique in the process (tests build several engines with the same bond names); rte_ring
  // names are at most RTE_RING_NAMESIZE - 1 bytes.
  static std::atomic<unsigned> rings_made{0};
  const std::string ring_name =
      ("slow" + std::to_string(rings_made.fetch_add(1)) + "_" + config_.name)
          .substr(0, RTE_RING_NAMESIZE - 1);
  slow_ring_ = rte_ring_create(ring_name.c_str(), kSlowRingSlots, SOCKET_ID_ANY, RING_F_SC_DEQ);
  if (slow_ring_ == nullptr) {
    throw std::runtime_error("bond " + config_.name + ": cannot create ring " + ring_name + ": " +
                             rte_strerror(rte_errno));
  }
  shared_ = {&publisher_,
             &hasher_,
             slow_ring_,
             &record_activity_,
             static_cast<std::uint16_t>(members_.size()),
             partner_sources_.data(),
             BfdDivertRule{},
             bfd_local_macs_.data(),
             bfd_peer_sources_.data()};
  if (config_.bfd.mode != config::BfdMode::kOff) {
    const bool micro = config_.bfd.mode == config::BfdMode::kMicro;
    shared_.bfd = {micro ? bfd::kMicroBfdPort : bfd::kSingleHopPort, micro};
  }
  if (!config_.classes.classes.empty()) {
    classifier_ = std::make_unique<classify::Classifier>(config_.classes);
    shared_.classifier = classifier_.get();
    class_count_ = config_.classes.classes.size();
    for (std::size_t c = 0; c < class_count_; ++c) {
      if (!config_.classes.classes[c].ecn) continue;
      shared_.ecn[c] = &*config_.classes.classes[c].ecn;
      shared_.ecn_classes = static_cast<std::uint8_t>(shared_.ecn_classes | 1u << c);
    }
    shared_.member_depth = queue_depth_.data();
    const std::vector<classify::ClassSpec>& classes = config_.classes.classes;
    // The share arbiter splits a short member by them; the PFC watchdog asks whether a
    // priority had anything to send.
    shared_.count_offered = config_.classes.reserving() || config_.scheduler.pfc_watchdog.enabled;
    for (std::size_t c = 0; c < class_count_; ++c) {
      if (classes[c].rate_cap) shared_.cap_burst_bytes[c] = classes[c].rate_cap->burst_kb * 1024;
      if (config_.classes.gives_way(c) || classes[c].rate_cap)
        shared_.policed_classes = static_cast<std::uint8_t>(shared_.policed_classes | 1u << c);
    }
  }
  const auto every_member = static_cast<std::uint16_t>((1u << members_.size()) - 1);
  for (std::size_t c = 0; c < class_count_; ++c) {
    class_masks_[c] = every_member;
    if (classifier_ && !config_.classes.classes[c].members.empty()) {
      class_masks_[c] = 0;
      for (const std::uint16_t m : config_.classes.classes[c].members)
        class_masks_[c] = static_cast<std::uint16_t>(class_masks_[c] | 1u << m);
    }
    class_weights_[c].assign(members_.size(), 1);
  }
  lsc_registered_.assign(members_.size(), false);
  if (config_.lldp.enabled) create_lldp();
}

Bond::~Bond() {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (lsc_registered_[m]) {
      rte_eth_dev_callback_unregister(members_[m].port->id(), RTE_ETH_EVENT_INTR_LSC,
                                      on_link_interrupt, this);
    }
  }
  if (slow_ring_ != nullptr) {
    rte_mbuf* frame = nullptr;
    while (rte_ring_dequeue(slow_ring_, reinterpret_cast<void**>(&frame)) == 0) {
      rte_pktmbuf_free(frame);
    }
    rte_ring_free(slow_ring_);
  }
}

void Bond::prepare_members() {
  for (Member& member : members_) {
    const int rc = rte_eth_dev_default_mac_addr_set(member.port->id(), &mac_);
    if (rc != 0) {
      BRAID_LOG_TO(kBond, WARNING, "bond %s: member %s keeps its own MAC (%s): %s\n",
                   config_.name.c_str(), member.port->name().c_str(),
                   mac_text(member.own_mac).c_str(), strerror(-rc));
    }
  }
}

int Bond::on_link_interrupt(std::uint16_t, rte_eth_event_type, void* bond, void*) {
  // Runs on EAL's interrupt thread: only flag it and wake the protocol loop, which reads the
  // links itself.
  auto* self = static_cast<Bond*>(bond);
  self->link_event_.store(true, std::memory_order_release);
  if (self->context_.waker != nullptr) self->context_.waker->notify();
  return 0;
}

void Bond::start(std::uint64_t now_ns) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const std::uint16_t port_id = members_[m].port->id();
    const int rc = rte_eth_allmulticast_enable(port_id);
    if (rc != 0 && rc != -ENOTSUP) {
      BRAID_LOG_TO(kBond, WARNING,
                   "bond %s: member %s: cannot enable all-multicast (%s); LACPDUs to "
                   "01-80-C2-00-00-02 may not arrive\n",
                   config_.name.c_str(), members_[m].port->name().c_str(), strerror(-rc));
    }
    if (members_[m].port->lsc_interrupts()) {
      lsc_registered_[m] = rte_eth_dev_callback_register(port_id, RTE_ETH_EVENT_INTR_LSC,
                                                         on_link_interrupt, this) == 0;
    }
  }
  if (config_.mode == config::BondMode::kLacp) {
    lacp::SystemConfig system;
    system.system_priority = config_.lacp.system_priority;
    system.system_mac = to_lacp_mac(mac_);
    std::vector<lacp::PortConfig> ports;
    for (std::size_t m = 0; m < members_.size(); ++m) {
      lacp::PortConfig port;
      port.port_number = static_cast<std::uint16_t>(m + 1);
      port.port_priority = config_.lacp.port_priority;
      port.port_mac = to_lacp_mac(members_[m].own_mac);
      port.key = config_.lacp.key;
      port.activity =
          config_.lacp.active ? lacp::LacpActivity::kActive : lacp::LacpActivity::kPassive;
      port.timeout = config_.lacp.fast ? lacp::LacpTimeout::kShort : lacp::LacpTimeout::kLong;
      port.aggregate_wait_ns = std::uint64_t{config_.lacp.aggregate_wait_ms} * 1'000'000;
      port.fallback = config_.lacp.fallback;
      ports.push_back(port);
    }
    lacp_ = std::make_unique<lacp::LacpSystem>(
        system, ports,
        [this](std::size_t member, ByteSpan frame) { return send_control_frame(member, frame); },
        now_ns);
    for (Member& member : members_) {
      rte_eth_stats stats{};
      if (rte_eth_stats_get(member.port->id(), &stats) == 0)
        member.rx_packets_seen = stats.ipackets;
    }
  }
  buckets_.assign(class_count_ * config_.buckets, kNoMember);
  homes_.assign(class_count_ * config_.buckets, kNoMember);
  log(now_ns, "started, MAC " + mac_text(mac_));
  start_bfd(now_ns);
  next_health_sample_ns_ = now_ns;
  poll_links(now_ns);
  run_health(now_ns);
  rebuild(now_ns, "start");
  // Again after a stop (leave_service stopped the agents): members whose link is up listen.
  if (lldp_) {
    for (std::size_t m = 0; m < members_.size(); ++m)
      lldp_->set_link(m, members_[m].link_up, now_ns);
  }
}

std::uint64_t Bond::poll(std::uint64_t now_ns) {
  const bool event = link_event_.exchange(false, std::memory_order_acq_rel);
  if (now_ns >= next_link_poll_ns_)
    note_lateness(DeadlineKind::kLinkPoll, next_link_poll_ns_, now_ns);
  if (event || now_ns >= next_link_poll_ns_) poll_links(now_ns);
  poll_slow_queues(now_ns);
  const bool ring_left = drain_slow_ring(now_ns);
  send_pending_goodbyes(now_ns);
  if (lacp_) run_lacp(now_ns);
  run_health(now_ns);
  const std::uint64_t bfd_next = bfd_ ? bfd_->poll(now_ns) : UINT64_MAX;
  publisher_.reclaim();
  std::uint64_t next = std::min(next_link_poll_ns_, next_health_deadline_ns());
  if (lldp_) next = std::min(next, run_lldp(now_ns));
  if (lacp_) next = std::min(next, lacp_->next_deadline_ns());
  if (bfd_) next = std::min(next, bfd_next);
  if (lacp_ && config_.lacp.fallback) next = std::min(next, next_neighbour_check_ns_);
  for (const Member& member : members_) {
    if (member.goodbye) next = std::min(next, now_ns + lacp::kTxRetryTime);
  }
  // Frames left on the ring: come back at once (the loop serves its other work in between).
  return ring_left ? now_ns : next;
}

void Bond::note_lateness(DeadlineKind kind, std::uint64_t deadline_ns, std::uint64_t now_ns) {
  if (context_.lag == nullptr || deadline_ns == 0 || deadline_ns == lacp::kNever) return;
  const std::uint64_t late = context_.lag->record(kind, deadline_ns, now_ns);
  if (kind == DeadlineKind::kLinkPoll || !context_.lag->over_slack(late)) return;
  // An LACP deadline missed by more than the slack: the protocol loop did not get the CPU.
  constexpr std::uint64_t kWarningInterval = 10'000'000'000;
  if (last_late_warning_ns_ != 0 && now_ns - last_late_warning_ns_ < kWarningInterval) {
    ++late_warnings_suppressed_;
    return;
  }
  BRAID_LOG_TO(kBond, WARNING,
               "bond %s: %s deadline served %.1f ms late (slack %.0f ms; %llu more since the last "
               "warning): the protocol loop lacks CPU; give the main lcore a CPU of its own "
               "(doc/deploy.md)\n",
               config_.name.c_str(),
               std::string(kDeadlineKindNames[static_cast<std::size_t>(kind)]).c_str(),
               static_cast<double>(late) / 1e6, static_cast<double>(context_.lag->slack_ns()) / 1e6,
               static_cast<unsigned long long>(late_warnings_suppressed_));
  last_late_warning_ns_ = now_ns;
  late_warnings_suppressed_ = 0;
}

void Bond::run_lacp(std::uint64_t now_ns) {
  observe_neighbours(now_ns);
  if (now_ns >= lacp_->next_deadline_ns()) {
    const std::uint64_t periodic = lacp_->next_periodic_ns();
    if (now_ns >= periodic) note_lateness(DeadlineKind::kLacpPeriodic, periodic, now_ns);
    const std::uint64_t expiry = lacp_->next_expiry_ns();
    if (now_ns >= expiry) note_lateness(DeadlineKind::kLacpExpiry, expiry, now_ns);
    lacp_->tick(now_ns);
  }
  log_fallback_changes(now_ns);
  if (lacp_->generation() != lacp_generation_) {
    for (std::size_t m = 0; m < members_.size(); ++m)
      update_health(m, now_ns);
    rebuild(now_ns, "LACP state changed");
  }
}

// Fallback needs proof that the far end is alive (config.hpp): frames arriving on the member.
// Read once a second, only where fallback is configured.
void Bond::observe_neighbours(std::uint64_t now_ns) {
  if (!config_.lacp.fallback || now_ns < next_neighbour_check_ns_) return;
  constexpr std::uint64_t kNeighbourCheckInterval = 1'000'000'000;
  next_neighbour_check_ns_ = now_ns + kNeighbourCheckInterval;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    rte_eth_stats stats{};
    if (rte_eth_stats_get(members_[m].port->id(), &stats) != 0) continue;
    if (stats.ipackets != members_[m].rx_packets_seen) lacp_->on_neighbour_frames(m, now_ns);
    members_[m].rx_packets_seen = stats.ipackets;
  }
}

void Bond::log_fallback_changes(std::uint64_t now_ns) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const lacp::FallbackState state = lacp_->fallback(m);
    if (state == members_[m].fallback) continue;
    const bool engaged = state == lacp::FallbackState::kEngaged;
    const bool was_engaged = members_[m].fallback == lacp::FallbackState::kEngaged;
    members_[m].fallback = state;
    if (engaged) {
      BRAID_LOG_TO(kBond, WARNING,
                   "bond %s: member %s: LACP fallback engaged: no LACPDU for %.0f s and frames "
                   "from the far end; it carries traffic as an individual link, unchecked by "
                   "any partner (lacp.fallback, doc/lacp.md)\n",
                   config_.name.c_str(), members_[m].port->name().c_str(),
                   static_cast<double>(lacp::kLongTimeoutTime) / 1e9);
    }
    if (engaged || was_engaged) {
      log(now_ns,
          "member " + members_[m].port->name() + " LACP fallback " + lacp::to_string(state));
    }
  }
}

void Bond::poll_links(std::uint64_t now_ns) {
  next_link_poll_ns_ = now_ns + std::uint64_t{config_.link_poll_us} * 1000;
  bool changed = false;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Member& member = members_[m];
    rte_eth_link link{};
    if (rte_eth_link_get_nowait(member.port->id(), &link) != 0) continue;
    bool up = link.link_status == RTE_ETH_LINK_UP;
    // A kernel interface's own link (net_af_packet says up from start to stop).
    if (const int ifindex = member.port->kernel_ifindex();
        ifindex != 0 && context_.kernel_links != nullptr) {
      up = up && context_.kernel_links->up(ifindex).value_or(true);
    }
    const bool full_duplex = link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX;
    if (up == member.link_up && link.link_speed == member.speed_mbps) continue;
    member.link_up = up;
    member.speed_mbps = link.link_speed;
    member.full_duplex = full_duplex;
    ++counters_.link_changes;
    changed = true;
    log(now_ns, "member " + member.port->name() + " link " + (up ? "up " : "down") +
                    (up ? " " + std::to_string(link.link_speed) + " Mbit/s" : ""));
    if (lacp_) {
      lacp_->on_link(m, up && member.admin_up, member.speed_mbps, full_duplex, now_ns);
    }
    if (lldp_) lldp_->set_link(m, up, now_ns);
    update_health(m, now_ns);
  }
  if (changed) rebuild(now_ns, "link change");
}

bool Bond::usable(std::size_t m) const {
  const Member& member = members_[m];
  if (!member.link_up || !member.admin_up) return false;
  const bool weighed = std::any_of(class_weights_.begin(), class_weights_.begin() + class_count_,
                                   [m](const std::vector<std::uint32_t>& w) { return w[m] != 0; });
  if (!weighed) return false;
  if (health_permille(m) == 0) return false;  // down or suppressed, or degraded to weight 0
  if (lacp_) return lacp_->distributing(m);
  return true;
}

void Bond::rebuild(std::uint64_t now_ns, const std::string& cause) {
  if (lacp_) lacp_generation_ = lacp_->generation();
  auto table = std::make_unique<BondTable>();
  // Per member, what its health leaves it while usable (0 otherwise); every class's table
  // weighs it by the class's own scheduler weights on top.
  std::vector<std::uint32_t> base(members_.size(), 0);
  std::size_t usable_count = 0;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (usable(m)) ++usable_count;
  }
  if (config_.mode == config::BondMode::kActiveBackup) {
    // Sticky: the active member stays while it is usable; otherwise the first usable one.
    if (!active_backup_member_ || !usable(*active_backup_member_)) {
      active_backup_member_.reset();
      for (std::size_t m = 0; m < members_.size() && !active_backup_member_; ++m) {
        if (usable(m)) active_backup_member_ = m;
      }
    }
    if (active_backup_member_) base[*active_backup_member_] = 1;
  } else if (usable_count >= config_.min_links) {
    for (std::size_t m = 0; m < members_.size(); ++m) {
      // A degraded member's quota shrinks, the others' grow, so rebalance moves only buckets
      // off it (bucket_assignment.hpp).
      if (usable(m)) base[m] = health_permille(m);
    }
  }
  const std::uint32_t per_class = config_.buckets;
  std::uint32_t moved = 0;
  for (std::size_t c = 0; c < class_count_; ++c) {
    const std::vector<std::uint32_t> weights =
        config_.mode == config::BondMode::kActiveBackup ? base : class_weights(c, base, now_ns);
    const std::span<MemberIndex> buckets = class_buckets(c);
    const std::span<const MemberIndex> homes(homes_.data() + c * per_class, per_class);
    const RebalanceResult result = flowlet_managed_[c] ? reassign_orphans(buckets, weights)
                                                       : rebalance(buckets, weights, homes);
    std::copy(result.buckets.begin(), result.buckets.end(), buckets.begin());
    moved += result.moved;
    update_bucket_homes(c);
    for (std::size_t m = 0; m < members_.size(); ++m) {
      if (weights[m] == 0) continue;
      table->distributing[m] = true;
      table->class_members[c] = static_cast<std::uint16_t>(table->class_members[c] | 1u << m);
    }
  }
  for (std::size_t m = 0; m < members_.size(); ++m) {
    switch (config_.mode) {
      case config::BondMode::kLacp:
        table->collecting[m] = lacp_->collecting(m) && members_[m].admin_up;
        // Its partner's frames lose their own rate limit with the partner (on_slow_frame).
        if (!lacp_->collecting(m)) partner_sources_[m].store(0, std::memory_order_relaxed);
        break;
      case config::BondMode::kStatic:
        table->collecting[m] = members_[m].link_up && members_[m].admin_up;
        break;
      case config::BondMode::kActiveBackup:
        table->collecting[m] = base[m] != 0;
        break;
    }
  }
  table->buckets = buckets_;
  table->bucket_shift = 32 - static_cast<std::uint32_t>(__builtin_ctz(per_class));
  table->class_shift = static_cast<std::uint32_t>(__builtin_ctz(per_class));
  table->spray_classes = spray_classes_;
  if (config_.scheduler.pfc_watchdog.action == config::StormAction::kDrop) {
    for (std::size_t m = 0; m < members_.size(); ++m) {
      const std::uint8_t stormed = stormed_classes(m);
      for (std::size_t c = 0; c < class_count_; ++c) {
        if ((stormed >> c & 1u) == 0) continue;
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
  publisher_.publish(std::move(table));
  last_publish_ns_ = now_ns;
  ++counters_.tables_published;
  counters_.buckets_moved += moved;
  std::string distributing;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (publisher_.current()->distributing[m]) distributing += " " + members_[m].port->name();
  }
  log(now_ns, "table " + std::to_string(publisher_.published()) + " (" + cause +
                  "): " + counted(moved, "bucket") +
                  " moved; distributing:" + (distributing.empty() ? " none" : distributing));
}

std::vector<std::uint32_t> Bond::class_weights(std::size_t c,
                                               const std::vector<std::uint32_t>& base,
                                               std::uint64_t now_ns) {
  std::vector<std::uint32_t> weights(members_.size(), 0);
  bool any = false;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if ((class_masks_[c] >> m & 1) == 0 || storm_excludes(c, m)) continue;
    weights[m] = base[m] * class_weights_[c][m];
    any |= weights[m] != 0;
  }
  const bool spill = !any && classifier_ != nullptr &&
                     std::any_of(base.begin(), base.end(), [](std::uint32_t w) { return w != 0; });
  if (spill) {
    // None of the class's own members can carry it: the others do, rather than drop it.
    for (std::size_t m = 0; m < members_.size(); ++m) {
      if (!storm_excludes(c, m))
        weights[m] = base[m] * std::max<std::uint32_t>(class_weights_[c][m], 1);
    }
  }
  if (spill != spilling_[c]) {
    spilling_[c] = spill;
    const std::string& name = config_.classes.classes[c].name;
    log(now_ns, spill ? "class " + name +
                            ": none of its members can carry traffic; it spills over to "
                            "the bond's other members"
                      : "class " + name + ": back on its own members");
  }
  return weights;
}

std::span<MemberIndex> Bond::class_buckets(std::size_t c) {
  return std::span(buckets_).subspan(c * config_.buckets, config_.buckets);
}

std::span<const MemberIndex> Bond::assignment(std::size_t c) const {
  // Before start() there is no table yet: an empty span, as the table it would be.
  if (buckets_.size() < (c + 1) * config_.buckets) return {};
  return std::span(buckets_).subspan(c * config_.buckets, config_.buckets);
}

bool Bond::class_distributes(std::size_t c, std::size_t m) const {
  const BondTable* table = publisher_.current();
  return table != nullptr && c < class_count_ && (table->class_members[c] >> m & 1) != 0;
}

void Bond::update_bucket_homes(std::size_t c) {
  std::vector<std::uint32_t> nominal(members_.size(), 0);
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if ((class_masks_[c] >> m & 1) != 0) nominal[m] = class_weights_[c][m];
  }
  const std::size_t offset = c * config_.buckets;
  update_homes(std::span(homes_).subspan(offset, config_.buckets),
               std::span<const MemberIndex>(buckets_).subspan(offset, config_.buckets), nominal);
}

void Bond::set_member_admin(std::size_t m, bool up, std::uint64_t now_ns) {
  Member& member = members_.at(m);
  if (member.admin_up == up) return;
  if (!up) say_goodbye(m, now_ns);
  member.admin_up = up;
  if (up) member.goodbye.reset();
  log(now_ns, "member " + member.port->name() + " admin " + (up ? "up" : "down"));
  if (lacp_) lacp_->on_link(m, member.link_up && up, member.speed_mbps, member.full_duplex, now_ns);
  rebuild(now_ns, "admin change");
}

void Bond::say_goodbye(std::size_t m, std::uint64_t now_ns) {
  if (!lacp_ || !members_[m].link_up) return;
  members_[m].goodbye = lacp_->goodbye_frame(m);
  send_pending_goodbyes(now_ns);
}

void Bond::send_pending_goodbyes(std::uint64_t now_ns) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Member& member = members_[m];
    if (!member.goodbye) continue;
    if (!member.link_up) {
      member.goodbye.reset();  // the link went down: the partner knows
      continue;
    }
    if (!send_control_frame(m, ByteSpan(*member.goodbye))) continue;  // next poll
    member.goodbye.reset();
    lacp_->goodbye_sent(m, now_ns);
    ++counters_.goodbye_tx;
    log(now_ns, "member " + member.port->name() + ": goodbye LACPDU sent (out of sync)");
  }
}

std::size_t Bond::leave_service(std::uint64_t now_ns, std::uint64_t patience_ns) {
  const std::uint64_t sent_before = counters_.goodbye_tx;
  if (lldp_) lldp_->stop_all(now_ns);
  if (lacp_) {
    for (std::size_t m = 0; m < members_.size(); ++m) {
      if (members_[m].admin_up) members_[m].goodbye = lacp_->goodbye_frame(m);
    }
    const std::uint64_t until = now_ns + patience_ns;
    for (std::uint64_t now = now_ns;; now = monotonic_ns()) {
      send_pending_goodbyes(now);
      const bool pending = std::any_of(members_.begin(), members_.end(), [](const Member& member) {
        return member.goodbye.has_value();
      });
      if (!pending || now >= until) break;
      rte_delay_us_sleep(100);
    }
  }
  if (config_.link_down_on_stop) {
    for (Member& member : members_) {
      if (const std::string error = member.port->set_link(false); !error.empty()) {
        BRAID_LOG_TO(kBond, WARNING,
                     "bond %s: member %s: cannot take the link down (%s, driver %s); the far "
                     "end keeps its carrier\n",
                     config_.name.c_str(), member.port->name().c_str(), error.c_str(),
                     member.port->driver().c_str());
      }
    }
  }
  return counters_.goodbye_tx - sent_before;
}

bool Bond::set_lacp_rate(bool fast, std::uint64_t now_ns) {
  if (!lacp_) return false;
  config_.lacp.fast = fast;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    lacp_->set_timeout(m, fast ? lacp::LacpTimeout::kShort : lacp::LacpTimeout::kLong, now_ns);
  }
  log(now_ns, std::string("LACP rate ") + (fast ? "fast" : "slow"));
  return true;
}

void Bond::set_weights(std::size_t c, const std::vector<std::uint32_t>& weights,
                       std::uint64_t now_ns) {
  for (std::size_t m = 0; m < members_.size() && m < weights.size(); ++m)
    class_weights_.at(c)[m] = weights[m];
  rebuild(now_ns, "weights");
}

void Bond::set_weight_targets(std::size_t c, const std::vector<std::uint32_t>& weights,
                              std::uint64_t now_ns) {
  bool usability_changed = false;
  for (std::size_t m = 0; m < members_.size() && m < weights.size(); ++m) {
    std::uint32_t& weight = class_weights_.at(c)[m];
    usability_changed |= (weight == 0) != (weights[m] == 0);
    weight = weights[m];
  }
  if (usability_changed) rebuild(now_ns, "weights");
}

void Bond::set_flowlet_managed(std::size_t c, bool managed) {
  flowlet_managed_.at(c) = managed;
  const bool any = std::any_of(flowlet_managed_.begin(), flowlet_managed_.begin() + class_count_,
                               [](bool flowlets) { return flowlets; });
  record_activity_.store(any, std::memory_order_relaxed);
}

void Bond::set_spray(std::size_t c, bool spray, std::uint64_t now_ns) {
  const auto bit = static_cast<std::uint8_t>(1u << c);
  const auto mask = static_cast<std::uint8_t>(spray ? spray_classes_ | bit : spray_classes_ & ~bit);
  if (c >= class_count_ || mask == spray_classes_) return;
  spray_classes_ = mask;
  if (publisher_.current() != nullptr) rebuild(now_ns, spray ? "spray on" : "spray off");
}

std::optional<std::uint64_t> Bond::publish_assignment(std::size_t c,
                                                      std::span<const MemberIndex> buckets,
                                                      std::uint64_t now_ns,
                                                      const std::string& cause) {
  const BondTable* current = publisher_.current();
  if (current == nullptr || c >= class_count_ || buckets.size() != config_.buckets)
    return std::nullopt;
  const std::span<MemberIndex> own = class_buckets(c);
  std::uint32_t moved = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b] != own[b]) {
      const bool held = buckets[b] == kHeldBucket;
      if (!held &&
          (buckets[b] >= members_.size() || (current->class_members[c] >> buckets[b] & 1) == 0))
        return std::nullopt;
      ++moved;
    }
  }
  if (moved == 0) return current->generation;
  std::copy(buckets.begin(), buckets.end(), own.begin());
  auto table = std::make_unique<BondTable>(*current);
  table->buckets = buckets_;
  update_bucket_homes(c);
  publisher_.publish(std::move(table));
  last_publish_ns_ = now_ns;
  ++counters_.tables_published;
  counters_.buckets_moved += moved;
  // Flowlet moves happen every period: counted, logged only at debug level.
  BRAID_LOG_TO(kBond, DEBUG, "bond %s: table %llu (%s): %s moved\n", config_.name.c_str(),
               static_cast<unsigned long long>(publisher_.published()), cause.c_str(),
               counted(moved, "bucket").c_str());
  return publisher_.published();
}

ClassHits* Bond::class_hits_for_worker(std::size_t worker) {
  if (!classifier_) return nullptr;
  if (class_hits_.size() <= worker) class_hits_.resize(worker + 1);
  if (!class_hits_[worker]) class_hits_[worker] = std::make_unique<ClassHits>();
  return class_hits_[worker].get();
}

namespace {

// Sums one per-class counter array over the workers' ClassHits.
template <typename Counters>
std::array<std::uint64_t, classify::kMaxClasses> sum_classes(
    const std::vector<std::unique_ptr<ClassHits>>& workers, Counters ClassHits::*counters) {
  std::array<std::uint64_t, classify::kMaxClasses> total{};
  for (const auto& worker : workers) {
    if (!worker) continue;
    for (std::size_t c = 0; c < total.size(); ++c)
      total[c] += ((*worker).*counters)[c].get();
  }
  return total;
}

// Sums one per-class, per-member counter array over the workers' ClassHits.
template <typename Counters>
ClassMemberCounts sum_class_members(const std::vector<std::unique_ptr<ClassHits>>& workers,
                                    Counters ClassHits::*counters) {
  ClassMemberCounts total{};
  for (const auto& worker : workers) {
    if (!worker) continue;
    for (std::size_t c = 0; c < total.size(); ++c) {
      for (std::size_t m = 0; m < kMaxMembers; ++m)
        total[c][m] += ((*worker).*counters)[c][m].get();
    }
  }
  return total;
}

}  // namespace

std::array<std::uint64_t, classify::kMaxClasses> Bond::class_packets() const {
  return sum_classes(class_hits_, &ClassHits::packets);
}

ClassMemberCounts Bond::class_ecn_marked() const {
  return sum_class_members(class_hits_, &ClassHits::ecn_marked);
}

std::array<std::uint64_t, classify::kMaxClasses> Bond::class_ecn_not_ect() const {
  return sum_classes(class_hits_, &ClassHits::ecn_not_ect);
}

std::array<std::uint64_t, classify::kMaxClasses> Bond::class_rate_capped() const {
  return sum_classes(class_hits_, &ClassHits::rate_capped);
}

ClassMemberCounts Bond::class_gave_way() const {
  return sum_class_members(class_hits_, &ClassHits::gave_way);
}

ClassMemberCounts Bond::class_offered() const {
  return sum_class_members(class_hits_, &ClassHits::offered);
}

ClassMemberCounts Bond::class_storm_dropped() const {
  return sum_class_members(class_hits_, &ClassHits::storm_dropped);
}

ClassMemberCounts Bond::class_share_limits() const {
  ClassMemberCounts total{};
  bool any_worker = false;
  for (const auto& worker : class_hits_) {
    if (!worker) continue;
    any_worker = true;
    for (std::size_t c = 0; c < total.size(); ++c) {
      for (std::size_t m = 0; m < kMaxMembers; ++m) {
        const std::uint32_t limit = worker->limits.share_pps[c][m].load(std::memory_order_relaxed);
        // One worker without a limit: none for the bond.
        total[c][m] = limit == kNoShareLimit || total[c][m] == kNoShareLimit ? kNoShareLimit
                                                                             : total[c][m] + limit;
      }
    }
  }
  if (!any_worker) {
    for (auto& row : total)
      row.fill(kNoShareLimit);
  }
  return total;
}

BucketActivityArray* Bond::activity_for_worker(std::size_t worker) {
  if (activity_.size() <= worker) activity_.resize(worker + 1);
  if (!activity_[worker])
    activity_[worker] = std::make_unique<BucketActivityArray>(
        static_cast<std::uint32_t>(class_count_ * config_.buckets));
  return activity_[worker].get();
}

std::uint32_t Bond::health_permille(std::size_t m) const {
  return members_[m].health->weight_permille();
}

health::CounterSnapshot Bond::read_health_counters(std::size_t m) const {
  const std::uint16_t port_id = members_[m].port->id();
  health::EthdevCounters counters;
  rte_eth_stats stats{};
  counters.stats_ok = rte_eth_stats_get(port_id, &stats) == 0;
  counters.ipackets = stats.ipackets;
  counters.ierrors = stats.ierrors;
  counters.imissed = stats.imissed;
  counters.rx_nombuf = stats.rx_nombuf;
  counters.xstats = drivers::read_ethdev_xstats(port_id);
  // An emulated link's injected FCS errors (drivers/linkemu/rx_errors.hpp), as a NIC's xstat.
  if (const std::optional<std::uint64_t> injected = linkemu::injected_crc_errors(port_id))
    counters.xstats.emplace_back("rx_crc_errors", *injected);
  health::CounterSnapshot snapshot = health::ethdev_snapshot(counters, health_xstats_);
  members_[m].health_sources->overlay(snapshot);
  return snapshot;
}

bool Bond::update_health(std::size_t m, std::uint64_t now_ns,
                         std::optional<health::CounterSnapshot> counters) {
  Member& member = members_[m];
  const std::uint32_t before = member.health->weight_permille();
  health::HealthInputs inputs;
  inputs.carrier = member.link_up;
  inputs.lacp_usable = !lacp_ || lacp_->distributing(m);
  inputs.bfd = member.bfd;
  // A storm on every class's priority under action move: the member itself is out.
  inputs.pfc_storm = config_.scheduler.pfc_watchdog.action == config::StormAction::kMove &&
                     stormed_classes(m) == all_classes();
  inputs.counters = std::move(counters);
  // Signals whose counters the member's source lacks (or regained): one line per update, in the
  // log only; state changes, flaps and verdicts go to the bond's events too (show bond).
  std::string unavailable;
  std::string available;
  for (const health::HealthEvent& event : member.health->update(inputs, now_ns)) {
    const char* signal = health::to_string(event.evidence.signal);
    if (event.kind == health::EventKind::kSignalUnavailable) {
      unavailable += std::string(unavailable.empty() ? "" : ", ") + signal;
    } else if (event.kind == health::EventKind::kSignalAvailable) {
      available += std::string(available.empty() ? "" : ", ") + signal;
    } else {
      log(now_ns, "member " + member.port->name() + " health: " + health::to_string(event));
    }
  }
  if (!unavailable.empty()) {
    BRAID_LOG_TO(kBond, INFO, "bond %s: member %s health: no counters for %s (unavailable)\n",
                 config_.name.c_str(), member.port->name().c_str(), unavailable.c_str());
  }
  if (!available.empty()) {
    BRAID_LOG_TO(kBond, INFO, "bond %s: member %s health: counters again for %s\n",
                 config_.name.c_str(), member.port->name().c_str(), available.c_str());
  }
  return member.health->weight_permille() != before;
}

void Bond::update_all_health(std::uint64_t now_ns, bool sample, const std::string& cause) {
  bool changed = false;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (!sample) {
      changed |= update_health(m, now_ns);
      continue;
    }
    health::CounterSnapshot counters = read_health_counters(m);
    if (lacp_)
      counters[static_cast<std::size_t>(health::Signal::kLacpduMissed)] = lacpdu_sample(m, now_ns);
    if (bfd_)
      counters[static_cast<std::size_t>(health::Signal::kBfdMissed)] = bfd_sample(m, now_ns);
    changed |= update_health(m, now_ns, counters);
  }
  if (changed) rebuild(now_ns, cause);
}

health::CounterSample Bond::lacpdu_sample(std::size_t m, std::uint64_t now_ns) {
  const lacp::Port& port = lacp_->port(m);
  // The partner's Periodic Transmission machine (802.1AX-2014 6.4.13) sends at the rate our
  // Timeout bit asks for, unless both ends are Passive; a Defaulted actor has no partner.
  const bool owes = members_[m].link_up && port.partnered() &&
                    (lacp::has_bit(port.actor.state, lacp::state_bit::kActivity) ||
                     lacp::has_bit(port.partner.state, lacp::state_bit::kActivity));
  const std::uint64_t period_ns = lacp::has_bit(port.actor.state, lacp::state_bit::kTimeout)
                                      ? lacp::kFastPeriodicTime
                                      : lacp::kSlowPeriodicTime;
  return members_[m].lacpdus.sample(now_ns, owes ? std::optional(period_ns) : std::nullopt,
                                    lacp_->counters(m).lacpdu_rx);
}

health::CounterSample Bond::bfd_sample(std::size_t m, std::uint64_t now_ns) {
  const BfdMemberView view = bfd_->view(m);
  // Up: the peer sends every peer_interval (less jitter, never slower: RFC 5880 6.8.7). Down,
  // Init or AdminDown: its slow 1 s packets are no evidence either way (detection judges).
  const bool owes = view.state == bfd::State::kUp && view.peer_interval_ns != 0;
  return members_[m].bfd_packets.sample(
      now_ns, owes ? std::optional(view.peer_interval_ns) : std::nullopt, view.counters.packets_in);
}

void Bond::run_health(std::uint64_t now_ns) {
  if (now_ns >= next_health_sample_ns_) {
    next_health_sample_ns_ = now_ns + kHealthSampleInterval;
    update_all_health(now_ns, true, "health");
    return;
  }
  const bool due = std::any_of(members_.begin(), members_.end(), [now_ns](const Member& member) {
    const std::optional<std::uint64_t> deadline = member.health->next_deadline_ns();
    return deadline && *deadline <= now_ns;
  });
  if (due) update_all_health(now_ns, false, "health");
}

std::uint64_t Bond::next_health_deadline_ns() const {
  std::uint64_t next = next_health_sample_ns_;
  for (const Member& member : members_) {
    if (const std::optional<std::uint64_t> deadline = member.health->next_deadline_ns())
      next = std::min(next, *deadline);
  }
  return next;
}

void Bond::set_bfd_status(std::size_t m, health::BfdStatus status, std::uint64_t now_ns) {
  if (members_.at(m).bfd == status) return;
  members_[m].bfd = status;
  if (update_health(m, now_ns)) rebuild(now_ns, "BFD");
}

void Bond::set_pfc_storm(std::size_t m, std::uint8_t priorities, std::uint64_t now_ns) {
  Member& member = members_.at(m);
  if (member.storm_priorities == priorities) return;
  const bool more = (priorities & ~member.storm_priorities) != 0;
  member.storm_priorities = priorities;
  std::string stormed;
  for (std::size_t p = 0; p < health::kPfcPriorities; ++p) {
    if ((priorities >> p & 1u) != 0) stormed += (stormed.empty() ? "" : ",") + std::to_string(p);
  }
  std::string classes;
  const std::uint8_t affected = stormed_classes(m);
  for (std::size_t c = 0; c < config_.classes.classes.size(); ++c) {
    if ((affected >> c & 1u) != 0)
      classes += (classes.empty() ? "" : ", ") + config_.classes.classes[c].name;
  }
  const bool drop = config_.scheduler.pfc_watchdog.action == config::StormAction::kDrop;
  log(now_ns,
      "member " + member.port->name() +
          ": PFC storm priorities: " + (stormed.empty() ? "none" : stormed) +
          (classes.empty() ? "" : "; classes " + classes + (drop ? " dropped" : " moved off")));
  update_health(m, now_ns);
  // The classes' tables (move) or their drop masks (drop) change even where the member's health
  // does not.
  rebuild(now_ns, more ? "PFC storm" : "PFC storm ended");
}

std::uint8_t Bond::class_priority(std::size_t c) const {
  const auto bond_priority =
      static_cast<std::uint8_t>(config_.scheduler.congestion.priority % health::kPfcPriorities);
  const std::vector<classify::ClassSpec>& classes = config_.classes.classes;
  return c < classes.size() ? classes[c].priority.value_or(bond_priority) : bond_priority;
}

std::uint8_t Bond::pfc_priorities() const {
  unsigned mask = 0;
  for (std::size_t c = 0; c < class_count_; ++c)
    mask |= 1u << class_priority(c);
  return static_cast<std::uint8_t>(mask);
}

std::uint8_t Bond::stormed_classes(std::size_t m) const {
  const std::uint8_t priorities = members_.at(m).storm_priorities;
  unsigned mask = 0;
  for (std::size_t c = 0; c < class_count_; ++c) {
    if ((priorities >> class_priority(c) & 1u) != 0) mask |= 1u << c;
  }
  return static_cast<std::uint8_t>(mask);
}

bool Bond::storm_excludes(std::size_t c, std::size_t m) const {
  if (config_.scheduler.pfc_watchdog.action != config::StormAction::kMove) return false;
  const std::uint8_t stormed = stormed_classes(m);
  // Every class stormed: the member is down (its health), which every table already follows.
  return (stormed >> c & 1u) != 0 && stormed != all_classes();
}

health::HealthView Bond::health_view(std::size_t m, std::uint64_t now_ns) const {
  return members_.at(m).health->view(now_ns);
}

std::vector<MemberStatus> Bond::members() const {
  std::vector<MemberStatus> status;
  const BondTable* table = publisher_.current();
  const std::vector<std::uint32_t> counts = bucket_counts(buckets_, members_.size());
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const Member& member = members_[m];
    const char* link_source =
        member.port->lsc_interrupts()                                            ? "interrupt"
        : member.port->kernel_ifindex() != 0 && context_.kernel_links != nullptr ? "kernel"
                                                                                 : "poll";
    status.push_back({member.port->name(), member.port->id(), member.link_up, member.speed_mbps,
                      member.admin_up, table != nullptr && table->collecting[m],
                      table != nullptr && table->distributing[m], class_weights_[0][m], counts[m],
                      member.slow_queue, link_source, member.slow_policed});
    status.back().health = member.health->state();
    status.back().health_reason =
        health::reason_string(member.health->reason(), member.health->evidence().signal);
    status.back().health_weight_permille = member.health->weight_permille();
  }
  return status;
}

void Bond::log(std::uint64_t now_ns, std::string text) {
  BRAID_LOG_TO(kBond, INFO, "bond %s: %s\n", config_.name.c_str(), text.c_str());
  events_.push_back({now_ns, std::move(text)});
  if (events_.size() > kEventLogCapacity) events_.pop_front();
}

}  // namespace braid::bond
