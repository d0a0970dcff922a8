// Frames for the Slow Protocols tests: a partner's LACPDU (lib/lacp's own encoder), a plain UDP
// data frame, and mbufs holding either, plus a wait that keeps braid's control thread running.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "common/clock.hpp"
#include "eal_environment.hpp"
#include "engine/engine.hpp"
#include "lacp/pdu.hpp"
#include "trace/frame_builder.hpp"

namespace braid::test {

// A LACPDU from an active partner that has not heard from us yet (802.1AX 6.4.2.3).
inline std::vector<std::uint8_t> partner_lacpdu() {
  lacp::Lacpdu pdu;
  pdu.actor.system_priority = 100;
  pdu.actor.system = {0x02, 0x50, 0x41, 0x52, 0x54, 0x01};
  pdu.actor.key = 1;
  pdu.actor.port_priority = 1;
  pdu.actor.port_number = 1;
  pdu.actor.state =
      lacp::state_bit::kActivity | lacp::state_bit::kTimeout | lacp::state_bit::kAggregation;
  const lacp::SlowFrame frame = lacp::encode_lacpdu({0x02, 0x50, 0x41, 0x52, 0x54, 0x11}, pdu);
  return {frame.begin(), frame.end()};
}

// A UDP frame of flow `flow` (its source port): distinct flows hash to distinct RX queues.
inline std::vector<std::uint8_t> data_frame(std::uint16_t flow = 0) {
  trace::FlowSpec spec;
  spec.protocol = trace::kIpProtoUdp;
  spec.src_ipv4 = 0x0a000001;
  spec.dst_ipv4 = 0x0a000002;
  spec.src_port = static_cast<std::uint16_t>(7000 + flow);
  spec.dst_port = 4420;
  return trace::build_frame(spec, 128);
}

inline rte_mbuf* mbuf_of(const std::vector<std::uint8_t>& bytes) {
  rte_mbuf* mbuf = rte_pktmbuf_alloc(test_mempool());
  if (mbuf == nullptr) return nullptr;
  char* data = rte_pktmbuf_append(mbuf, static_cast<std::uint16_t>(bytes.size()));
  if (data == nullptr) {
    rte_pktmbuf_free(mbuf);
    return nullptr;
  }
  std::memcpy(data, bytes.data(), bytes.size());
  return mbuf;
}

// Whether `mbuf` is a copy of `bytes`, judged by its length and headers: RingPort's TX callback
// writes a send time into the payload (eal_environment.hpp).
inline bool holds(const rte_mbuf* mbuf, const std::vector<std::uint8_t>& bytes) {
  constexpr std::size_t kHeaders = 48;  // Ethernet, IPv4, UDP and the start of the payload
  return mbuf->data_len == bytes.size() && bytes.size() >= kHeaders &&
         std::memcmp(rte_pktmbuf_mtod(mbuf, const void*), bytes.data(), kHeaders) == 0;
}

// Runs braid's control thread work (this thread plays it) until `done` or `timeout_ns`;
// `between` runs each round too (draining what the engine sent). Returns whether `done`.
inline bool run_control_until(engine::Engine& engine, const std::function<bool()>& done,
                              const std::function<void()>& between = {},
                              std::uint64_t timeout_ns = 10'000'000'000ull) {
  const std::uint64_t deadline = monotonic_ns() + timeout_ns;
  while (monotonic_ns() < deadline) {
    engine.poll_control(monotonic_ns());
    if (between) between();
    if (done()) return true;
  }
  return false;
}

}  // namespace braid::test
