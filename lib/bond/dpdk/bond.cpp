#include "bond/dpdk/bond.hpp"

#include <rte_errno.h>
#include <rte_ethdev.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "config/config_validate.hpp"
#include "lacp/constants.hpp"
#include "log/log_types.hpp"

namespace braid::bond {
namespace {

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

const std::vector<drivers::EthdevPort*>& checked(const std::vector<drivers::EthdevPort*>& members,
                                                 const std::string& bond) {
  if (members.empty() || members.size() > kMaxMembers) {
    throw std::invalid_argument("bond " + bond + ": 1 to " + std::to_string(kMaxMembers) +
                                " members");
  }
  return members;
}

std::vector<std::uint16_t> port_ids(const std::vector<drivers::EthdevPort*>& members) {
  std::vector<std::uint16_t> ids;
  for (const drivers::EthdevPort* port : members)
    ids.push_back(port->id());
  return ids;
}

}  // namespace

Bond::Bond(const config::BondConfig& config, std::vector<drivers::EthdevPort*> members,
           const BondContext& context)
    : config_(config),
      context_(context),
      events_(config.name),
      late_(config.name, context.lag),
      sender_(context.control_pool, context.control_tx_queue,
              port_ids(checked(members, config.name)), counters_),
      links_(members, context.kernel_links, context.waker,
             std::uint64_t{config.link_poll_us} * 1000),
      health_(config_, members, events_),
      tables_(config_, members.size(), context.qsbr, events_, counters_),
      worker_counts_(!config.classes.classes.empty(),
                     static_cast<std::uint32_t>(
                         std::max<std::size_t>(config.classes.classes.size(), 1) * config.buckets)),
      hasher_(policy_of(config)) {
  for (drivers::EthdevPort* port : members) {
    Member member;
    member.port = port;
    rte_eth_macaddr_get(port->id(), &member.own_mac);
    if (!is_usable_unicast(member.own_mac))
      member.own_mac = derived_mac(config_.name, members_.size() + 1);
    members_.push_back(std::move(member));
    services_.emplace_back(config_.lacp.withdraw);
  }
  if (context.slow_reads != nullptr) health_.read_off_loop(context.slow_reads, context.waker);
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
  shared_ = {&tables_.publisher(),
             &hasher_,
             slow_ring_,
             &tables_.record_activity(),
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
    const std::vector<classify::ClassSpec>& classes = config_.classes.classes;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (!classes[c].ecn) continue;
      shared_.ecn[c] = &*classes[c].ecn;
      shared_.ecn_classes = static_cast<std::uint8_t>(shared_.ecn_classes | 1u << c);
    }
    // The share arbiter splits a short member by them; the PFC watchdog asks whether a
    // priority had anything to send.
    shared_.count_offered = config_.classes.reserving() || config_.scheduler.pfc_watchdog.enabled;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].rate_cap) shared_.cap_burst_bytes[c] = classes[c].rate_cap->burst_kb * 1024;
      if (config_.classes.gives_way(c) || classes[c].rate_cap)
        shared_.policed_classes = static_cast<std::uint8_t>(shared_.policed_classes | 1u << c);
    }
  }
  if (config_.lldp.enabled) create_lldp();
}

Bond::~Bond() {
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

void Bond::start(std::uint64_t now_ns) {
  for (const Member& member : members_) {
    const int rc = rte_eth_allmulticast_enable(member.port->id());
    if (rc != 0 && rc != -ENOTSUP) {
      BRAID_LOG_TO(kBond, WARNING,
                   "bond %s: member %s: cannot enable all-multicast (%s); LACPDUs to "
                   "01-80-C2-00-00-02 may not arrive\n",
                   config_.name.c_str(), member.port->name().c_str(), strerror(-rc));
    }
  }
  links_.register_interrupts();
  if (config_.mode == config::BondMode::kLacp) {
    std::vector<lacp::MacAddress> port_macs;
    std::vector<drivers::EthdevPort*> ports;
    for (const Member& member : members_) {
      port_macs.push_back(to_lacp_mac(member.own_mac));
      ports.push_back(member.port);
    }
    lacp_ = std::make_unique<BondLacp>(
        config_, to_lacp_mac(mac_), port_macs, ports, links_,
        [this](std::size_t member, ByteSpan frame) { return send_control_frame(member, frame); },
        events_, late_, counters_, now_ns);
    apply_resume(now_ns);
  }
  tables_.reset();
  stopping_ = false;
  log(now_ns, "started, MAC " + mac_text(mac_));
  start_bfd(now_ns);
  health_.restart_sampling(now_ns);
  on_link_changes(links_.read(now_ns, events_), now_ns);
  // New LACP machines (a start after a stop): every port as its link and admin state say.
  if (lacp_) {
    for (std::size_t m = 0; m < members_.size(); ++m)
      lacp_->set_enabled(m, lacp_enabled(m), now_ns);
    log_resume_outcomes(now_ns);
  }
  run_health(now_ns);
  rebuild(now_ns, "start");
  // Again after a stop (leave_service stopped the agents): members whose link is up listen.
  if (lldp_) {
    for (std::size_t m = 0; m < members_.size(); ++m)
      lldp_->set_link(m, links_.up(m), now_ns);
  }
}

std::uint64_t Bond::poll(std::uint64_t now_ns) {
  on_link_changes(links_.poll(now_ns, late_, events_), now_ns);
  poll_slow_queues(now_ns);
  const bool ring_left = drain_slow_ring(now_ns);
  if (lacp_) {
    lacp_->run(now_ns);
    if (!resume_logged_.empty()) log_resume_outcomes(now_ns);
    if (lacp_->changed()) rebuild(now_ns, "LACP state changed");
  }
  run_health(now_ns);
  // Partners acknowledging withdrawals, patience running out, cabling findings.
  if (update_services(now_ns)) rebuild(now_ns, "member service");
  const std::uint64_t bfd_next = bfd_ ? bfd_->poll(now_ns) : UINT64_MAX;
  tables_.publisher().reclaim();
  std::uint64_t next = std::min(links_.next_poll_ns(), health_.next_deadline_ns());
  for (const MemberService& service : services_) {
    if (const std::optional<std::uint64_t> deadline = service.next_deadline_ns())
      next = std::min(next, *deadline);
  }
  if (lldp_) next = std::min(next, run_lldp(now_ns));
  if (lacp_) next = std::min(next, lacp_->next_deadline_ns(now_ns));
  if (bfd_) next = std::min(next, bfd_next);
  // Frames left on the ring: come back at once (the loop serves its other work in between).
  return ring_left ? now_ns : next;
}

void Bond::on_link_changes(const std::vector<std::size_t>& changed, std::uint64_t now_ns) {
  if (changed.empty()) return;
  counters_.link_changes += changed.size();
  for (const std::size_t m : changed) {
    if (lacp_) lacp_->set_enabled(m, lacp_enabled(m), now_ns);
    if (lldp_) lldp_->set_link(m, links_.up(m), now_ns);
    update_health(m, now_ns);
  }
  rebuild(now_ns, "link change");
}

void Bond::rebuild(std::uint64_t now_ns, const std::string& cause) {
  if (lacp_) lacp_->acknowledge();
  update_services(now_ns);
  TablePlan plan;
  // Per member, what its service leaves it while usable (0 otherwise); every class's table
  // weighs it by the class's own scheduler weights on top.
  plan.base.assign(members_.size(), 0);
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
    if (active_backup_member_) plan.base[*active_backup_member_] = 1;
  } else if (usable_count >= config_.min_links) {
    for (std::size_t m = 0; m < members_.size(); ++m) {
      // A degraded member's quota shrinks, the others' grow, so rebalance moves only buckets
      // off it (bucket_assignment.hpp).
      if (usable(m)) plan.base[m] = services_[m].verdict().tx_weight_permille;
    }
  }
  for (std::size_t m = 0; m < members_.size(); ++m) {
    plan.stormed[m] = stormed_classes(m);
    switch (config_.mode) {
      case config::BondMode::kLacp:
      case config::BondMode::kStatic:
        plan.collecting[m] = services_[m].verdict().collecting;
        // Its partner's frames lose their own rate limit with the partner (on_slow_frame).
        if (lacp_ && !lacp_->collecting(m) && !plan.collecting[m])
          partner_sources_[m].store(0, std::memory_order_relaxed);
        break;
      case config::BondMode::kActiveBackup:
        plan.collecting[m] = plan.base[m] != 0;
        break;
    }
  }
  tables_.rebuild(plan, now_ns, cause);
}

std::size_t Bond::leave_service(std::uint64_t now_ns, std::uint64_t patience_ns) {
  const std::uint64_t sent_before = counters_.goodbye_tx;
  if (lldp_) lldp_->stop_all(now_ns);
  if (lacp_)
    lacp_->leave(now_ns, patience_ns, [this](std::size_t m) { return members_[m].admin_up; });
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

const lacp::LacpSystem* Bond::lacp() const {
  return lacp_ ? &lacp_->system() : nullptr;
}

bool Bond::set_lacp_rate(bool fast, std::uint64_t now_ns) {
  if (!lacp_) return false;
  config_.lacp.fast = fast;
  lacp_->set_rate(fast, now_ns);
  return true;
}

void Bond::set_weights(std::size_t c, const std::vector<std::uint32_t>& weights,
                       std::uint64_t now_ns) {
  tables_.set_weights(c, weights);
  rebuild(now_ns, "weights");
}

void Bond::set_weight_targets(std::size_t c, const std::vector<std::uint32_t>& weights,
                              std::uint64_t now_ns) {
  if (tables_.set_weight_targets(c, weights)) rebuild(now_ns, "weights");
}

void Bond::set_spray(std::size_t c, bool spray, std::uint64_t now_ns) {
  if (tables_.set_spray(c, spray)) rebuild(now_ns, spray ? "spray on" : "spray off");
}

HealthFacts Bond::health_facts(std::size_t m) const {
  HealthFacts facts;
  facts.carrier = links_.up(m);
  // A storm on every class's priority under action move: the member itself is out.
  facts.pfc_storm = config_.scheduler.pfc_watchdog.action == config::StormAction::kMove &&
                    stormed_classes(m) == tables_.all_classes();
  return facts;
}

void Bond::run_health(std::uint64_t now_ns) {
  const bool changed = health_.run(
      now_ns, [this](std::size_t m) { return health_facts(m); },
      [this, now_ns](std::size_t m, health::CounterSnapshot& counters) {
        if (lacp_) {
          counters[static_cast<std::size_t>(health::Signal::kLacpduMissed)] =
              lacp_->lacpdu_sample(m, health_.lacpdus(m), now_ns);
        }
        if (bfd_)
          counters[static_cast<std::size_t>(health::Signal::kBfdMissed)] = bfd_sample(m, now_ns);
      });
  if (changed) rebuild(now_ns, "health");
}

health::CounterSample Bond::bfd_sample(std::size_t m, std::uint64_t now_ns) {
  const BfdMemberView view = bfd_->view(m);
  // Up: the peer sends every peer_interval (less jitter, never slower: RFC 5880 6.8.7). Down,
  // Init or AdminDown: its slow 1 s packets are no evidence either way (detection judges).
  const bool owes = view.state == bfd::State::kUp && view.peer_interval_ns != 0;
  // The peer's detect multiplier (Detection Time over its interval): a silence that short is
  // what detection judges, and the member goes down for it; only a loss that outlasts it, with
  // the session still Up, is bfd_missed.
  const double detect_mult =
      owes && view.detection_time_ns != 0
          ? static_cast<double>(view.detection_time_ns) / static_cast<double>(view.peer_interval_ns)
          : 1.0;
  return health_.bfd_packets(m).sample(now_ns,
                                       owes ? std::optional(view.peer_interval_ns) : std::nullopt,
                                       view.counters.packets_in, std::max(1.0, detect_mult));
}

void Bond::set_bfd_status(std::size_t m, health::BfdStatus status, std::uint64_t now_ns) {
  if (!health_.set_bfd(m, status)) return;
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

std::vector<MemberStatus> Bond::members() const {
  std::vector<MemberStatus> status;
  const BondTable* table = tables_.current();
  const std::vector<std::uint32_t> counts = bucket_counts(tables_.assignment(), members_.size());
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const Member& member = members_[m];
    const MemberLink& link = links_.link(m);
    status.push_back({member.port->name(), member.port->id(), link.up, link.speed_mbps,
                      member.admin_up, table != nullptr && table->collecting[m],
                      table != nullptr && table->distributing[m], tables_.weight(0, m), counts[m],
                      member.slow_queue, links_.source(m), member.slow_policed,
                      member.slow_unsupported});
    const health::MemberHealth& health = health_.member(m);
    status.back().health = health.state();
    status.back().health_reason = health::reason_string(health.reason(), health.evidence().signal);
    status.back().health_weight_permille = health.weight_permille();
    const MemberService& service = services_[m];
    status.back().service = service.verdict();
    status.back().tx_since_ns = service.tx_since_ns();
    status.back().partner_since_ns = service.partner_since_ns();
    status.back().partner_told = lacp_ != nullptr;
    status.back().release = service.release();
    status.back().last_release = service.last_release();
    status.back().last_release_wait_ns = service.last_release_wait_ns();
  }
  return status;
}

}  // namespace braid::bond
