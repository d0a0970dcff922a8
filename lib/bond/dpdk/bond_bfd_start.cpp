// The bond's side of BFD (bonds[].bfd, doc/health.md#bfd): its sessions start with the bond,
// send on the members' control TX queue, and each state change becomes the member's BFD health
// input and a line in the log and the bond's events.
#include <rte_ethdev.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

#include "bond/dpdk/bond.hpp"
#include "common/clock.hpp"
#include "log/log_types.hpp"

namespace braid::bond {

void Bond::start_bfd(std::uint64_t now_ns) {
  if (config_.bfd.mode == config::BfdMode::kOff) return;
  std::vector<bfd::MacAddress> macs;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    // The port's MAC now (the bond's, where the PMD took it): what the partner sends to.
    rte_ether_addr mac{};
    if (rte_eth_macaddr_get(members_[m].port->id(), &mac) != 0 || rte_is_zero_ether_addr(&mac))
      mac = members_[m].own_mac;
    bfd::MacAddress bytes{};
    std::memcpy(bytes.data(), mac.addr_bytes, bytes.size());
    macs.push_back(bytes);
    bfd_local_macs_[m].store(mac_key(bytes.data()), std::memory_order_relaxed);
  }
  // RFC 5880 6.8.1: discriminators unique on the system, and better not the same after a
  // restart (a peer still Up on the old one must not take the new session for it).
  static std::uint32_t next_discriminator =
      static_cast<std::uint32_t>(now_ns ^ (static_cast<std::uint64_t>(getpid()) << 16)) | 1u;
  const std::uint32_t first = next_discriminator;
  next_discriminator += static_cast<std::uint32_t>(members_.size());
  bfd_ = std::make_unique<BondBfd>(
      config_.bfd, macs, first,
      [this](std::size_t member, ByteSpan frame) { return send_control_frame(member, frame); },
      [this](std::size_t member, const bfd::StateChange& change, health::BfdStatus status) {
        log(change.time_ns, "member " + members_[member].port->name() + " BFD " +
                                bfd::to_string(change.from) + " -> " + bfd::to_string(change.to) +
                                " (" + bfd::to_string(change.diag) + ")");
        set_bfd_status(member, status, change.time_ns);
      },
      bfd_peer_sources_.data());
  bfd_->on_deadline([this](DeadlineKind kind, std::uint64_t due_ns, std::uint64_t now) {
    late_.note(kind, due_ns, now);
  });
  warn_if_bfd_outruns_the_loop();
  log(now_ns, std::string("BFD ") + config::to_string(config_.bfd.mode) + ", " +
                  std::to_string(config_.bfd.desired_min_tx_ms) + " ms x " +
                  std::to_string(config_.bfd.detect_mult) +
                  ": members carry traffic once their session is up");
  // RFC 7130 3: a member whose session is not Up carries no traffic.
  for (std::size_t m = 0; m < members_.size(); ++m)
    health_.set_bfd(m, bfd_->status(m));
}

void Bond::warn_if_bfd_outruns_the_loop() {
  const std::uint64_t interval_ns = std::uint64_t{config_.bfd.desired_min_tx_ms} * 1'000'000;
  const std::uint64_t detection_ns = interval_ns * config_.bfd.detect_mult;
  // A BFD deadline later than one interval is a packet the peer counts as missing.
  late_.set_warning_threshold(DeadlineKind::kBfdTransmit, interval_ns);
  late_.set_warning_threshold(DeadlineKind::kBfdDetection, interval_ns);
  const DeadlineLag* lag = late_.lag();
  if (lag == nullptr) return;
  const std::uint64_t seen_ns = lag->loop(monotonic_ns()).worst_last_minute_ns;
  const std::uint64_t allowed_ns = std::max(lag->slack_ns(), seen_ns);
  if (detection_ns > allowed_ns) return;
  BRAID_LOG_TO(kBond, WARNING,
               "bond %s: BFD %u ms x %u detects in %.0f ms, but the protocol loop may serve a "
               "deadline %.0f ms late (control.deadline_slack_ms %.0f ms, its worst period over "
               "the last minute %.1f ms): a late packet or a late Detection Time flaps the "
               "member; raise bfd.desired_min_tx_ms or detect_mult, or give the main lcore a CPU "
               "of its own (doc/deploy.md)\n",
               config_.name.c_str(), config_.bfd.desired_min_tx_ms,
               unsigned{config_.bfd.detect_mult}, static_cast<double>(detection_ns) / 1e6,
               static_cast<double>(allowed_ns) / 1e6, static_cast<double>(lag->slack_ns()) / 1e6,
               static_cast<double>(seen_ns) / 1e6);
}

}  // namespace braid::bond
