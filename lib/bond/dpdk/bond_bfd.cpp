#include "bond/dpdk/bond_bfd.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "bond/bfd_divert.hpp"

namespace braid::bond {

health::BfdStatus bfd_status(bfd::State local, bfd::State remote) {
  if (local == bfd::State::kAdminDown || remote == bfd::State::kAdminDown)
    return health::BfdStatus::kNotConfigured;
  return local == bfd::State::kUp ? health::BfdStatus::kUp : health::BfdStatus::kDown;
}

BondBfd::BondBfd(const config::BfdConfig& config, std::vector<bfd::MacAddress> local_macs,
                 std::uint32_t first_discriminator, Send send, OnChange on_change,
                 std::atomic<std::uint64_t>* peer_sources)
    : config_(config),
      send_(std::move(send)),
      on_change_(std::move(on_change)),
      peer_sources_(peer_sources),
      random_(first_discriminator) {
  if (local_macs.size() != config_.members.size())
    throw std::invalid_argument("BondBfd: one MAC per member");
  const bfd::Encapsulation encapsulation = config_.mode == config::BfdMode::kSingleHop
                                               ? bfd::Encapsulation::kSingleHop
                                               : bfd::Encapsulation::kMicroBfd;
  members_.resize(config_.members.size());
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const config::BfdMemberConfig& addresses = config_.members[m];
    Member& member = members_[m];
    member.name = addresses.member;
    bfd::SessionConfig session;
    // Skips 0, which RFC 5880 6.8.1 forbids, if the counter wraps.
    session.local_discriminator = first_discriminator + static_cast<std::uint32_t>(m);
    if (session.local_discriminator == 0) session.local_discriminator = 1;
    session.desired_min_tx_us = config_.desired_min_tx_ms * 1000;
    session.required_min_rx_us = config_.required_min_rx_ms * 1000;
    session.detect_mult = config_.detect_mult;
    if (const std::string error = bfd::check_session_config(session); !error.empty())
      throw std::invalid_argument("bfd: member " + member.name + ": " + error);
    member.session = std::make_unique<bfd::Session>(
        session, [this]() { return static_cast<std::uint32_t>(random_()); });
    member.session->on_state_change([this, m](const bfd::StateChange& change) {
      members_[m].last_change_ns = change.time_ns;
      if (on_change_) on_change_(m, change, status(m));
    });
    member.spec.encapsulation = encapsulation;
    member.spec.source_mac = local_macs[m];
    member.spec.destination_mac = addresses.remote_mac;
    member.spec.source_ip = addresses.local_ip;
    member.spec.destination_ip = addresses.remote_ip;
    member.spec.source_port = bfd::source_port_for(session.local_discriminator);
    if (const char* error = bfd::check_frame_spec(member.spec); *error != '\0')
      throw std::invalid_argument("bfd: member " + member.name + ": " + error);
    member.filter.encapsulation = encapsulation;
    member.filter.local_mac = local_macs[m];
    member.filter.local_ip = addresses.local_ip;
  }
}

void BondBfd::on_frame(std::size_t m, ByteSpan frame, std::uint64_t now_ns) {
  ++counters_.frames_in;
  if (m >= members_.size()) {
    ++counters_.frames_no_member;
    return;
  }
  Member& member = members_[m];
  const bfd::ParsedFrame parsed = bfd::parse_frame(frame, member.filter);
  if (parsed.reason != bfd::RejectReason::kNone) {
    member.session->count_rejected(parsed.reason);
    return;
  }
  if (member.session->on_packet(parsed.packet, now_ns) == bfd::RejectReason::kNone &&
      peer_sources_ != nullptr) {
    peer_sources_[m].store(mac_key(parsed.source_mac.data()), std::memory_order_relaxed);
  }
}

std::uint64_t BondBfd::poll(std::uint64_t now_ns) {
  std::uint64_t next = UINT64_MAX;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Member& member = members_[m];
    // What was due now, and which deadline it was: the Detection Time (6.8.4) or the transmit
    // timer (6.8.7). A deadline at or before the last call (a Final) is no timer.
    const std::uint64_t due = member.session->next_deadline_ns();
    if (note_deadline_ && due <= now_ns && due > last_poll_ns_) {
      const std::uint64_t detection = member.session->detection_time_ns();
      const bool detecting = detection != 0 && member.session->last_rx_ns() != 0 &&
                             member.session->last_rx_ns() + detection <= due;
      note_deadline_(detecting ? DeadlineKind::kBfdDetection : DeadlineKind::kBfdTransmit, due,
                     now_ns);
    }
    // A Final and the periodic packet may both be due: send until the session has nothing.
    while (const std::optional<bfd::ControlPacket> packet = member.session->poll(now_ns)) {
      const bfd::Frame frame = bfd::build_frame(member.spec, *packet);
      if (!send_(m, frame.span())) ++member.tx_failed;
    }
    next = std::min(next, member.session->next_deadline_ns());
  }
  last_poll_ns_ = now_ns;
  return next;
}

void BondBfd::set_admin_down(std::size_t m, bool down, std::uint64_t now_ns) {
  members_.at(m).session->set_admin_down(down, now_ns);
}

health::BfdStatus BondBfd::status(std::size_t m) const {
  const bfd::Session& session = *members_.at(m).session;
  return bfd_status(session.state(), session.remote_state());
}

BfdMemberView BondBfd::view(std::size_t m) const {
  const Member& member = members_.at(m);
  const bfd::Session& session = *member.session;
  BfdMemberView view;
  view.member = member.name;
  view.admin_down = session.state() == bfd::State::kAdminDown;
  view.state = session.state();
  view.remote_state = session.remote_state();
  view.diag = session.local_diag();
  view.local_discriminator = session.local_discriminator();
  view.remote_discriminator = session.remote_discriminator();
  view.tx_interval_ns = session.tx_interval_ns();
  view.detection_time_ns = session.detection_time_ns();
  view.peer_interval_ns = session.peer_interval_ns();
  view.last_rx_ns = session.last_rx_ns();
  view.last_change_ns = member.last_change_ns;
  view.tx_failed = member.tx_failed;
  view.status = status(m);
  view.counters = session.counters();
  return view;
}

}  // namespace braid::bond
