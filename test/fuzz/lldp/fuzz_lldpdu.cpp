// libFuzzer target: the LLDP frame decoder, then an agent fed the frame, checking what the
// neighbour table and the cabling check rely on.
//
// Input: one control byte, then the frame. The control byte picks
//   bits 0-1  the agent the frame meets (see build_agents): just started, one neighbour known,
//             a full table, stopped;
//   bits 2-4  how far the clock runs afterwards (kAfterNs), so that every timer can run out.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "lldp/agent.hpp"
#include "lldp/cabling.hpp"
#include "lldp/lldpdu.hpp"

namespace {

using namespace braid::lldp;

void check(bool condition) {
  if (!condition) std::abort();
}

constexpr std::uint64_t kS = kNsPerSecond;
constexpr std::uint64_t kStartNs = 100 * kS;
constexpr std::array<std::uint64_t, 8> kAfterNs = {0,      1,       kS - 1,   kS,
                                                   3 * kS, 30 * kS, 121 * kS, 70'000 * kS};
constexpr std::size_t kMaxNeighbours = 2;
constexpr std::uint64_t kWheelNs = 130 * kS;  // past the default TTL of 121 s

// make_corpus.py builds its seeds with the same identities.
Lldpdu ours() {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_mac({0x02, 0x00, 0x00, 0x00, 0x0a, 0x00});
  lldpdu.port_id = port_interface_name("p0");
  lldpdu.system_name = "braid";
  return lldpdu;
}

Lldpdu known_neighbour() {
  Lldpdu lldpdu;
  lldpdu.chassis_id = chassis_mac({0x0c, 0x00, 0x00, 0x00, 0x00, 0x01});
  lldpdu.port_id = port_interface_name("swp1");
  lldpdu.ttl_s = 120;
  return lldpdu;
}

std::vector<Agent> build_agents() {
  const AgentConfig config{.source_mac = {0x02, 0x00, 0x00, 0x00, 0x0a, 0x01},
                           .max_neighbours = kMaxNeighbours};
  Agent fresh(config, ours());
  fresh.start(0);
  while (fresh.poll(0)) {
  }
  Agent one = fresh;
  check(one.on_frame(build_frame({}, known_neighbour()), 1 * kS) == RxEvent::kNew);
  Agent full = one;
  Lldpdu second = known_neighbour();
  second.port_id = port_interface_name("swp2");
  check(full.on_frame(build_frame({}, second), 2 * kS) == RxEvent::kNew);
  Agent stopped = fresh;
  stopped.stop(3 * kS);
  while (stopped.poll(3 * kS)) {
  }
  return {fresh, one, full, stopped};
}

void check_table(const Agent& agent, std::uint64_t now_ns) {
  check(agent.neighbours().size() <= kMaxNeighbours);
  for (const Neighbour& neighbour : agent.neighbours()) {
    check(neighbour.expires_ns > now_ns);
    check(neighbour.info.ttl_s != 0);
    check(neighbour.aggregation == link_aggregation(neighbour.info));
  }
}

void drain(Agent& agent, std::uint64_t now_ns) {
  for (int sent = 0;; ++sent) {
    const auto frame = agent.poll(now_ns);
    if (!frame) break;
    check(sent < 2);  // at most a shutdown and one frame at one instant
    const ParsedFrame parsed = parse_frame(*frame);
    check(parsed.reason == RejectReason::kNone && parsed.end_seen);
    check(parsed.lldpdu.chassis_id == ours().chassis_id);
  }
  check(agent.next_deadline_ns() > now_ns);
  check_table(agent, now_ns);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<Agent> agents = build_agents();
  if (size == 0) return 0;
  const std::uint8_t control = data[0];
  const braid::ByteSpan frame(data + 1, size - 1);
  const std::size_t scene = control & 3;
  const std::uint64_t after_ns = kAfterNs[(control >> 2) & 7];

  const ParsedFrame parsed = parse_frame(frame);
  check(parsed.reason < RejectReason::kCount);
  if (parsed.reason == RejectReason::kNone && check_lldpdu(parsed.lldpdu).empty()) {
    // What we accept, encoded again, decodes to the same.
    const std::vector<std::uint8_t> rebuilt = build_frame(parsed.source_mac, parsed.lldpdu);
    const ParsedFrame again = parse_frame(rebuilt);
    check(again.reason == RejectReason::kNone && again.end_seen);
    check(again.lldpdu == parsed.lldpdu);
    (void)describe(parsed.lldpdu.chassis_id, true);
    (void)describe(parsed.lldpdu.port_id, false);
  }

  Agent agent = agents[scene];
  const std::uint64_t now_ns = kStartNs;
  drain(agent, now_ns);
  const std::size_t before = agent.neighbours().size();
  const RxEvent event = agent.on_frame(frame, now_ns);
  check((event == RxEvent::kDiscarded) == (scene != 3 && parsed.reason != RejectReason::kNone));
  if (event == RxEvent::kNew) check(agent.neighbours().size() == before + 1);
  if (event == RxEvent::kTableFull) check(before == kMaxNeighbours);
  drain(agent, now_ns);
  // The cabling check over what the agent heard never throws and names only our member.
  std::vector<MemberCabling> members(1);
  members[0].member = "p0";
  for (const Neighbour& neighbour : agent.neighbours())
    members[0].neighbours.push_back(heard(neighbour));
  for (const Finding& finding : check_cabling(members))
    check(finding.members == std::vector<std::string>{"p0"});
  // The protocol loop's timer wheel: every deadline for the first kWheelNs, in order; then one
  // late wake-up at the end, as after a stalled loop (the agent must catch up in one step).
  const std::uint64_t end_ns = now_ns + after_ns;
  const std::uint64_t wheel_end_ns = now_ns + std::min(after_ns, kWheelNs);
  for (int steps = 0; steps < 1'000 && agent.next_deadline_ns() <= wheel_end_ns; ++steps)
    drain(agent, std::max(now_ns, agent.next_deadline_ns()));
  drain(agent, end_ns);
  return 0;
}
