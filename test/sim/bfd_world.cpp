#include "bfd_world.hpp"

#include <algorithm>

#include "bfd/random.hpp"

namespace braid::bfd::sim {
namespace {

MacAddress mac_of(int end) {
  return {0x02, 0x00, 0x00, 0x00, static_cast<std::uint8_t>(0x0a + end), 0x01};
}

IpAddress ip_of(int end, bool ipv6) {
  if (!ipv6) return IpAddress::v4(0xc0a80001 + static_cast<std::uint32_t>(end));
  std::array<std::uint8_t, 16> address{0xfd};
  address[15] = static_cast<std::uint8_t>(1 + end);
  return IpAddress::v6(address);
}

}  // namespace

World::World(const LinkSpec& link, std::uint64_t seed) : link_(link), random_(seed), seed_(seed) {
  for (int end = 0; end < kEnds; ++end) {
    End& e = ends_[static_cast<std::size_t>(end)];
    e.spec.encapsulation = link.encapsulation;
    e.spec.source_mac = mac_of(end);
    e.spec.destination_mac = mac_of(1 - end);
    e.spec.source_ip = ip_of(end, link.ipv6);
    e.spec.destination_ip = ip_of(1 - end, link.ipv6);
    e.filter = {link.encapsulation, mac_of(end), ip_of(end, link.ipv6)};
  }
}

void World::start(int end, const SessionConfig& config) {
  End& e = ends_.at(static_cast<std::size_t>(end));
  e.spec.source_port = source_port_for(config.local_discriminator);
  // Each session draws its jitter from its own stream, the same in every run with this seed.
  e.session =
      std::make_unique<Session>(config, SplitMix64(seed_ * 1'000'003 + config.local_discriminator));
  e.session->on_state_change([&e](const StateChange& change) { e.changes.push_back(change); });
}

void World::cut(bool cut) {
  if (cut == cut_) return;
  cut_ = cut;
  ++epoch_;
}

void World::transmit(int from, const ControlPacket& packet) {
  ++frames_sent_;
  const End& e = ends_[static_cast<std::size_t>(from)];
  if (cut_ || std::uniform_real_distribution<double>(0.0, 1.0)(random_) < link_.loss) {
    ++frames_lost_;
    return;
  }
  in_flight_.push(
      {now_ns_ + link_.delay_ns, sequence_++, 1 - from, epoch_, build_frame(e.spec, packet)});
}

void World::deliver(const InFlight& frame) {
  if (frame.epoch != epoch_) {
    ++frames_lost_;
    return;
  }
  End& e = ends_[static_cast<std::size_t>(frame.to)];
  if (!e.session) return;  // nobody there yet
  e.arrivals.push_back(now_ns_);
  const ParsedFrame parsed = parse_frame(frame.frame.span(), e.filter);
  if (parsed.reason != RejectReason::kNone) {
    e.session->count_rejected(parsed.reason);
    return;
  }
  e.session->on_packet(parsed.packet, now_ns_);
}

void World::step(std::uint64_t limit_ns) {
  std::uint64_t next = limit_ns;
  if (!in_flight_.empty()) next = std::min(next, in_flight_.top().time_ns);
  for (const End& e : ends_) {
    if (e.session) next = std::min(next, e.session->next_deadline_ns());
  }
  now_ns_ = std::max(now_ns_, next);
  while (!in_flight_.empty() && in_flight_.top().time_ns <= now_ns_) {
    const InFlight frame = in_flight_.top();
    in_flight_.pop();
    deliver(frame);
  }
  for (int end = 0; end < kEnds; ++end) {
    Session* session = ends_[static_cast<std::size_t>(end)].session.get();
    if (session == nullptr) continue;
    while (auto packet = session->poll(now_ns_))
      transmit(end, *packet);
  }
}

}  // namespace braid::bfd::sim
