// GET /healthz (next to /metrics): 200 while the protocol loop and every worker keep moving,
// 503 naming the one that has not for longer than kStallLimitNs. Answered on the management
// thread from counters any thread may read (the loop's iteration count, each worker's poll
// loops), so a stalled protocol loop cannot hide its stall (doc/console.md, "Health").
#pragma once

#include <cstdint>

namespace braid::control {
class ControlPlane;
}

namespace braid::engine {

class Engine;
class ProtocolLoop;

// The LACP short timeout (802.1AX 6.4.4, 3 s): a protocol loop stalled this long has let its
// fast-rate partners expire it. The loop wakes at least every 100 ms and workers poll without
// pause, so a healthy one never comes near.
inline constexpr std::uint64_t kStallLimitNs = 3'000'000'000;

void register_health_endpoint(control::ControlPlane& control, const Engine& engine,
                              const ProtocolLoop& loop);

}  // namespace braid::engine
