// libFuzzer target: the BFD decoders (a bare Control packet, or a whole micro-BFD / single-hop
// frame), then one step of a session fed the decoded packet, checking what the bond will rely on.
//
// Input: one control byte, then the bytes. The control byte picks
//   bit 0     what the bytes are: a Control packet (the UDP payload) or a whole Ethernet frame;
//   bit 1     the frame's encapsulation: micro-BFD (6784) or single-hop (3784);
//   bits 2-3  the state the packet meets (a snapshot of a real conversation, see build_scenes):
//             just started, Init, Up at 10 ms, AdminDown;
//   bits 4-6  how far the clock runs afterwards (kAfterNs), so every timer can run out;
//   bit 7     the address family the receive filter expects (IPv4 or IPv6).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bfd/frame.hpp"
#include "bfd/random.hpp"
#include "bfd/session.hpp"

namespace {

using namespace braid::bfd;

void check(bool condition) {
  if (!condition) std::abort();
}

// make_corpus.py builds its seeds with the same identities.
constexpr std::uint32_t kLocal = 0x0a0a0a0a;
constexpr std::uint32_t kPeer = 0x0b0b0b0b;
constexpr MacAddress kLocalMac{0x02, 0x00, 0x00, 0x00, 0x0a, 0x01};
constexpr std::uint32_t kFastUs = 10'000;
constexpr std::uint64_t kMs = 1'000'000;

constexpr std::array<std::uint64_t, 8> kAfterNs = {
    0, 1 * kMs, 10 * kMs, 29 * kMs, 31 * kMs, 1'000 * kMs, 3'100 * kMs, 10'000 * kMs};

// 10 ms x 3 (the default multiplier).
SessionConfig config(std::uint32_t discriminator) {
  return {.local_discriminator = discriminator,
          .desired_min_tx_us = kFastUs,
          .required_min_rx_us = kFastUs};
}

ReceiveFilter filter(Encapsulation encapsulation, bool ipv6) {
  IpAddress local = IpAddress::v4(0xc0a80001);  // 192.168.0.1
  if (ipv6) local = IpAddress::v6({0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  return {encapsulation, kLocalMac, local};
}

// The packet as our encoder would write it: Length 24, no Authentication Section.
ControlPacket normalised(ControlPacket packet) {
  packet.length = kControlPacketLen;
  return packet;
}

// What the decoder accepts is what the RFC allows (6.8.6), and it encodes back to itself.
void check_accepted(const ControlPacket& packet) {
  check(packet.version == kVersion);
  check(packet.detect_mult != 0);
  check(!packet.multipoint && !packet.auth_present);
  check(packet.my_discriminator != 0);
  check(packet.your_discriminator != 0 || packet.state == State::kDown ||
        packet.state == State::kAdminDown);
  const ControlPacketBytes bytes = encode_control_packet(packet);
  ControlPacket again;
  check(decode_control_packet(braid::ByteSpan(bytes), again) == RejectReason::kNone);
  check(again == normalised(packet));
}

struct Scene {
  Session session;
  std::uint64_t now_ns;
};

// Our session talking to a peer over a perfect link, snapshotted as it passes each state.
std::vector<Scene> build_scenes() {
  Session ours(config(kLocal), SplitMix64(1));
  Session peer(config(kPeer), SplitMix64(2));
  std::vector<Scene> scenes;
  scenes.push_back({ours, 0});
  bool init_seen = false;
  std::uint64_t now = 0;
  for (int steps = 0; steps < 100'000; ++steps) {
    now = std::max(now, std::min(ours.next_deadline_ns(), peer.next_deadline_ns()));
    // The peer speaks first, so that ours meets its Down and passes through Init.
    while (auto packet = peer.poll(now))
      ours.on_packet(*packet, now);
    while (auto packet = ours.poll(now))
      peer.on_packet(*packet, now);
    if (!init_seen && ours.state() == State::kInit) {
      scenes.push_back({ours, now});
      init_seen = true;
    }
    if (ours.state() == State::kUp && peer.state() == State::kUp && !ours.poll_active() &&
        !peer.poll_active()) {
      scenes.push_back({ours, now});
      break;
    }
  }
  check(scenes.size() == 3 && init_seen);  // the conversation reached Up, through Init
  Session admin_down = scenes[2].session;
  admin_down.set_admin_down(true, scenes[2].now_ns);
  scenes.push_back({admin_down, scenes[2].now_ns});
  return scenes;
}

void check_sent(const Session& session, const ControlPacket& packet) {
  check_accepted(packet);
  check(packet.my_discriminator == kLocal);
  check(packet.your_discriminator == session.remote_discriminator());
  check(packet.state == session.state());
  check(!(packet.poll && packet.final));
  check(packet.detect_mult == 3);
  // 6.8.3: never faster than 1 s before Up.
  if (packet.state != State::kUp) check(packet.desired_min_tx_us >= kSlowTxIntervalUs);
}

void drain(Session& session, std::uint64_t now_ns) {
  for (int sent = 0;; ++sent) {
    const auto packet = session.poll(now_ns);
    if (!packet) break;
    check(sent < 2);  // at most a Final and a periodic packet at one instant
    check_sent(session, *packet);
  }
  check(session.next_deadline_ns() > now_ns);
  check(session.state() != State::kUp || session.remote_discriminator() != 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<Scene> scenes = build_scenes();
  static Session session = scenes[0].session;  // reused: copy-assigned
  if (size == 0) return 0;
  const std::uint8_t control = data[0];
  const braid::ByteSpan bytes(data + 1, size - 1);
  const bool whole_frame = (control & 1) != 0;
  const auto encapsulation =
      (control & 2) != 0 ? Encapsulation::kSingleHop : Encapsulation::kMicroBfd;
  const Scene& scene = scenes[(control >> 2) & 3];
  const std::uint64_t after_ns = kAfterNs[(control >> 4) & 7];
  const bool ipv6 = (control & 0x80) != 0;

  ControlPacket packet;
  RejectReason reason;
  if (whole_frame) {
    const ParsedFrame parsed = parse_frame(bytes, filter(encapsulation, ipv6));
    reason = parsed.reason;
    packet = parsed.packet;
    if (reason == RejectReason::kNone) {
      // A frame we accept, rebuilt from what we read, parses to the same.
      check(parsed.source_ip.ipv6 == ipv6 && parsed.destination_ip.ipv6 == ipv6);
      FrameSpec spec;
      spec.encapsulation = encapsulation;
      spec.source_mac = parsed.source_mac;
      spec.destination_mac = parsed.destination_mac;
      spec.source_ip = parsed.source_ip;
      spec.destination_ip = parsed.destination_ip;
      spec.source_port = parsed.source_port;
      const Frame rebuilt = build_frame(spec, packet);
      ReceiveFilter any = filter(encapsulation, ipv6);
      any.local_mac = {};  // a group source MAC comes back as the destination of a reply
      const ParsedFrame again = parse_frame(rebuilt.span(), any);
      check(again.reason == RejectReason::kNone);
      check(again.packet == normalised(packet));
      check(again.source_ip == parsed.source_ip && again.source_port == parsed.source_port);
    }
  } else {
    reason = decode_control_packet(bytes, packet);
  }
  if (reason != RejectReason::kNone) {
    check(reason < RejectReason::kCount);
    return 0;
  }
  check_accepted(packet);

  session = scene.session;
  const std::uint64_t now_ns = scene.now_ns + 1 * kMs;
  drain(session, now_ns);
  const RejectReason verdict = session.on_packet(packet, now_ns);
  check(verdict == RejectReason::kNone || verdict == RejectReason::kYourDiscriminatorMismatch ||
        verdict == RejectReason::kLocalAdminDown);
  drain(session, now_ns);
  const std::uint64_t end_ns = now_ns + after_ns;
  // The protocol loop's timer wheel: every deadline up to end_ns, in order.
  for (int steps = 0; steps < 10'000 && session.next_deadline_ns() <= end_ns; ++steps) {
    drain(session, std::max(now_ns, session.next_deadline_ns()));
  }
  drain(session, end_ns);
  return 0;
}
