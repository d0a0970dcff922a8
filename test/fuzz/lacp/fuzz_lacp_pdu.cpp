// libFuzzer target: the Slow Protocols decoder, then one step of a two-port LacpSystem fed the
// decoded frame, checking the invariants the bond relies on.
//
// Input: one control byte, then the frame. The control byte picks the state the frame meets (a
// snapshot of a real conversation with a partner system, see build_scenes), an event on the
// port just before it (link down, a new link speed, long timeout, passive), the port it arrives
// on and how far the one tick after it moves the clock. One short execution so reaches the
// machine states that replaying a whole conversation per input did (16 frames and 120 ticks),
// at a fraction of the cost: the snapshots are built once, and each execution copies one into a
// system it reuses. More ticks per input would find a little more per execution and cost far
// more: one tick costs about as much as everything else together.
//   bits 0-1 scene, bit 2 port, bits 3-5 kAfterNs, bits 6-7 PortEvent.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <utility>
#include <vector>

#include "lacp/frame.hpp"
#include "lacp/lacp_system.hpp"

namespace {

using namespace braid::lacp;

void check(bool condition) {
  if (!condition) std::abort();
}

// The fuzz target's own system, and the partner of the conversation the snapshots come from
// (make_corpus.py builds its LACPDUs with the same identities: priority 32768, ports 1 and 2 at
// 25G full duplex, so key 15 and port priority 255).
constexpr MacAddress kSystemMac{0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
constexpr MacAddress kPartnerMac{0x02, 0x00, 0x00, 0x00, 0x00, 0xbb};
constexpr std::size_t kPorts = 2;
constexpr std::uint32_t kSpeedMbps = 25'000;
constexpr std::uint64_t kStepNs = 100'000'000;  // the simulated control loop's tick

// What happens on the port just before the frame: the admin and link changes the bond makes.
enum class PortEvent : std::uint8_t { kNone, kLinkDown, kSpeedChange, kLongTimeoutPassive };

// How far the tick after the frame moves the clock: not at all, within the same tick, up to the
// fast periodic time, past the short timeout, past the long timeout and past churn detection
// (802.1AX-2014 6.4.4), so every timer can run out.
constexpr std::array<std::uint64_t, 8> kAfterNs = {0,
                                                   1'000'000,
                                                   400'000'000,
                                                   kFastPeriodicTime,
                                                   kShortTimeoutTime + 1,
                                                   10 * kNsPerSecond,
                                                   kLongTimeoutTime + 1,
                                                   kChurnDetectionTime + 1};

void check_invariants(const LacpSystem& system) {
  for (std::size_t index = 0; index < system.port_count(); ++index) {
    const Port& port = system.port(index);
    // Coupled control: distributing only with collecting, and only when attached and in sync.
    if (port.distributing) {
      check(port.collecting);
      check(port.attached);
      check(port.selected == Selected::kSelected);
      check(has_bit(port.partner.state, state_bit::kSynchronization));
    }
    check(port.mux_state != MuxState::kCollecting && port.mux_state != MuxState::kDistributing);
    // Never aggregate with ourselves.
    if (!has_bit(port.actor.state, state_bit::kDefaulted)) {
      check(port.partner.system != kSystemMac);
    }
  }
}

using FrameQueue = std::deque<std::pair<std::size_t, SlowFrame>>;

// Frames go to `queue` while the snapshots are built; during fuzzing (no queue) our system's
// are checked and dropped.
FrameQueue* g_queue_of_ours = nullptr;

LacpSystem make_system(const MacAddress& mac, std::uint8_t mac_tag, FrameQueue** queue) {
  SystemConfig system;
  system.system_mac = mac;
  system.event_log_capacity = 8;  // copied per execution: keep it small
  std::vector<PortConfig> ports(kPorts);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    ports[i].port_number = static_cast<std::uint16_t>(i + 1);
    ports[i].port_mac = {0x02, 0x00, 0x00, mac_tag, 0x01, static_cast<std::uint8_t>(i + 1)};
  }
  // The port takes every frame (LacpSystem::TxFunction reports whether it did).
  auto tx = [queue](std::size_t port, braid::ByteSpan frame) {
    check(frame.size() == kSlowFrameLen);
    if (*queue != nullptr) {
      SlowFrame copy{};
      std::copy(frame.begin(), frame.end(), copy.begin());
      (*queue)->emplace_back(port, copy);
    }
    return true;
  };
  LacpSystem lacp(system, ports, tx);
  for (std::size_t i = 0; i < kPorts; ++i)
    lacp.on_link(i, true, kSpeedMbps, true, 0);
  return lacp;
}

struct Scene {
  LacpSystem system;
  std::uint64_t now_ns;
};

// Snapshots of our system talking to a partner over two links: just up, partnered but not yet
// distributing, distributing on both ports, and with the partner gone silent past the timeout.
std::vector<Scene> build_scenes() {
  FrameQueue to_partner;
  FrameQueue to_us;
  FrameQueue* queue_of_partner = &to_us;
  g_queue_of_ours = &to_partner;
  LacpSystem ours = make_system(kSystemMac, 0x0a, &g_queue_of_ours);
  LacpSystem partner = make_system(kPartnerMac, 0x0b, &queue_of_partner);
  std::vector<Scene> scenes;
  scenes.push_back({ours, 0});
  bool partnered = false;
  bool talking = true;
  std::uint64_t silent_since_ns = 0;
  for (std::uint64_t now = kStepNs; now < 60 * kNsPerSecond; now += kStepNs) {
    ours.tick(now);
    partner.tick(now);
    for (; !to_partner.empty(); to_partner.pop_front()) {
      if (talking) partner.on_frame(to_partner.front().first, to_partner.front().second, now);
    }
    for (; !to_us.empty(); to_us.pop_front()) {
      if (talking) ours.on_frame(to_us.front().first, to_us.front().second, now);
    }
    if (!partnered && ours.port(0).partnered() && !ours.distributing(0)) {
      scenes.push_back({ours, now});
      partnered = true;
    }
    if (talking && ours.distributing(0) && ours.distributing(1)) {
      scenes.push_back({ours, now});
      talking = false;  // the partner goes quiet (its links stay up)
      silent_since_ns = now;
    }
    if (!talking && now - silent_since_ns > kShortTimeoutTime + kStepNs) {
      scenes.push_back({ours, now});
      break;
    }
  }
  g_queue_of_ours = nullptr;
  check(scenes.size() == 4);  // the conversation reached every stage
  return scenes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<Scene> scenes = build_scenes();
  static LacpSystem lacp = scenes[0].system;  // reused: copy-assigned, its storage kept
  if (size == 0) return 0;
  const std::uint8_t control = data[0];
  const braid::ByteSpan frame(data + 1, size - 1);

  const DecodedFrame decoded = decode_slow_frame(frame);
  check(decoded.kind == FrameKind::kInvalid ? decoded.error != DecodeError::kNone
                                            : decoded.error == DecodeError::kNone);

  const Scene& scene = scenes[control % scenes.size()];
  const std::size_t port = (control >> 2) & 1;
  const std::uint64_t after_ns = kAfterNs[(control >> 3) % kAfterNs.size()];
  const auto event = static_cast<PortEvent>(control >> 6);
  lacp = scene.system;
  const std::uint64_t now_ns = scene.now_ns + kStepNs;
  switch (event) {
    case PortEvent::kNone:
      break;
    case PortEvent::kLinkDown:
      lacp.on_link(port, false, 0, true, now_ns);
      break;
    case PortEvent::kSpeedChange:  // a new speed is a new derived key (lacp/key.hpp)
      lacp.on_link(port, true, kSpeedMbps * 4, true, now_ns);
      break;
    case PortEvent::kLongTimeoutPassive:
      lacp.set_timeout(port, LacpTimeout::kLong, now_ns);
      lacp.set_activity(port, LacpActivity::kPassive, now_ns);
      break;
  }
  check_invariants(lacp);
  lacp.on_frame(port, frame, now_ns);
  check_invariants(lacp);
  const std::uint64_t end_ns = now_ns + after_ns;
  lacp.tick(end_ns);
  check_invariants(lacp);
  check(lacp.next_deadline_ns() > end_ns);
  return 0;
}
