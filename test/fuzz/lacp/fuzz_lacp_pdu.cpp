// libFuzzer target: the Slow Protocols decoder, then the same bytes as a stream of frames into a
// small two-port LacpSystem, so hostile LACPDUs and Markers reach every state machine. The input
// is cut into 124-octet frames; frame i arrives on port i % 2, 400 ms after frame i-1, and the
// clock then runs on for two minutes so every timer fires. Checks the invariants the bond
// relies on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "lacp/frame.hpp"
#include "lacp/lacp_system.hpp"

namespace {

using namespace braid::lacp;

constexpr std::uint64_t kStepNs = 400'000'000;
constexpr std::size_t kMaxFrames = 16;

void check(bool condition) {
  if (!condition) std::abort();
}

constexpr MacAddress kSystemMac{0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const braid::ByteSpan input(data, size);
  const DecodedFrame decoded = decode_slow_frame(input);
  check(decoded.kind == FrameKind::kInvalid ? decoded.error != DecodeError::kNone
                                            : decoded.error == DecodeError::kNone);

  SystemConfig system;
  system.system_mac = kSystemMac;
  std::vector<PortConfig> ports(2);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    ports[i].port_number = static_cast<std::uint16_t>(i + 1);
    ports[i].port_mac = {0x02, 0x00, 0x00, 0x01, 0x01, static_cast<std::uint8_t>(i + 1)};
  }
  std::size_t frames_out = 0;
  LacpSystem lacp(system, ports, [&](std::size_t, braid::ByteSpan frame) {
    check(frame.size() == kSlowFrameLen);
    ++frames_out;
    return true;
  });
  lacp.on_link(0, true, 25'000, true, 0);
  lacp.on_link(1, true, 25'000, true, 0);
  std::uint64_t now_ns = 0;
  std::size_t frame_index = 0;
  for (std::size_t offset = 0; offset < size && frame_index < kMaxFrames;
       offset += kSlowFrameLen, ++frame_index) {
    const std::size_t length = std::min(kSlowFrameLen, size - offset);
    now_ns += kStepNs;
    lacp.tick(now_ns);
    lacp.on_frame(frame_index % 2, input.subspan(offset, length), now_ns);
    check_invariants(lacp);
  }
  for (int step = 0; step < 120; ++step) {
    now_ns += kNsPerSecond;
    lacp.tick(now_ns);
    check_invariants(lacp);
  }
  check(lacp.next_deadline_ns() > now_ns);
  (void)frames_out;
  return 0;
}
